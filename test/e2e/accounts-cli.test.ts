import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, mem } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/** The account commands as a person runs them: usage, profile, users, keys, login and logout. */
const home = tempHome('mem-e2e-accounts-');
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  env = { ...home.env, MEM_PORT: String(await freePort()) };
  const started = await mem(['daemon', 'start', '--json'], env);
  expect(started.exitCode, started.stderr).toBe(0);
});

afterAll(async () => {
  await mem(['daemon', 'stop'], env);
  home.remove();
});

describe('account commands against a real daemon', () => {
  it('usage prints a table with bars, or JSON', async () => {
    await mem(['save', 'Usage is counted per request, even from the CLI.'], env);
    const human = await mem(['usage', '--period', 'week', '--breakdown', 'endpoint'], env);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/Usage \(week, live keys\)/);
    expect(human.stdout).toMatch(/POST\s+\/v1\/save\s+1\s/);
    expect(human.stdout).toContain('█');
    const data = json<{ summary: { totalRequests: number }; daily?: unknown[] }>(await mem(['usage', '--breakdown', 'day', '--json'], env));
    expect(data.summary.totalRequests).toBeGreaterThanOrEqual(2);
    expect(data.daily).toHaveLength(30);
    const bad = await mem(['usage', '--period', 'year'], env);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/error\[VALIDATION_ERROR\]/);
  });

  it('profile shows the plan and changes settings', async () => {
    const set = await mem(['profile', 'set', '--timezone', 'Europe/Berlin', '--default-space', 'work'], env);
    expect(set.exitCode, set.stderr).toBe(0);
    const profile = json<{ tier: string; settings: { timezone: string; defaultSpace: string } }>(await mem(['profile', '--json'], env));
    expect(profile).toMatchObject({ tier: 'enterprise', settings: { timezone: 'Europe/Berlin', defaultSpace: 'work' } });
    const human = await mem(['profile'], env);
    expect(human.stdout).toMatch(/plan\s+enterprise/);
    const bad = await mem(['profile', 'set', '--timezone', 'Nowhere/Special'], env);
    expect(bad.exitCode).toBe(2);
  });

  it('users add prints the first key once; the new user logs in and out', async () => {
    const added = await mem(['users', 'add', '--email', 'ana@example.org', '--name', 'Ana', '--tier', 'pro', '--json'], env);
    expect(added.exitCode, added.stderr).toBe(0);
    const { data, key } = json<{ data: { id: string }; key: { key: string } }>(added);
    const list = await mem(['users', 'list'], env);
    expect(list.stdout).toMatch(/ana@example\.org\s+Ana\s+pro/);

    // Ana's own CLI (another home) logs in with the key from stdin.
    const anaHome = tempHome('mem-e2e-ana-');
    const anaEnv = { ...anaHome.env, MEM_HOST: `http://127.0.0.1:${env.MEM_PORT}` };
    try {
      const refused = await mem(['login'], anaEnv, { input: 'svc_live_tooshort' });
      expect(refused.exitCode).toBe(2);
      const login = await mem(['login', '--with-key'], anaEnv, { input: `${key.key}\n` });
      expect(login.exitCode, login.stderr).toBe(0);
      expect(login.stdout).toMatch(/Logged in as Ana <ana@example\.org> \(pro\)/);
      const profile = json<{ email: string }>(await mem(['profile', '--json'], anaEnv));
      expect(profile.email).toBe('ana@example.org');
      // Owner-only commands are refused for Ana.
      const forbidden = await mem(['users', 'list'], anaEnv);
      expect(forbidden.exitCode).toBe(4);
      expect(forbidden.stderr).toMatch(/owner/);
      const logout = await mem(['logout'], anaEnv);
      expect(logout.stdout).toMatch(/Logged out/);
      const after = await mem(['profile'], anaEnv);
      expect(after.exitCode).toBe(3);
    } finally {
      anaHome.remove();
    }

    const setTier = await mem(['users', 'set-tier', data.id, 'enterprise', '--json'], env);
    expect(json<{ tier: string }>(setTier).tier).toBe('enterprise');
    const noYes = await mem(['users', 'remove', data.id], env);
    expect(noYes.exitCode).toBe(2);
    expect(noYes.stderr).toMatch(/Refusing without --yes/);
    const removed = await mem(['users', 'remove', data.id, '--yes'], env);
    expect(removed.exitCode, removed.stderr).toBe(0);
  });

  it('keys: limits at creation, confirmation, and regenerating the CLI key keeps the CLI working', async () => {
    const created = await mem(
      ['keys', 'create', '--name', 'laptop-app', '--rate-limit', '500', '--monthly-limit', '20000', '--expires', '2099-01-01', '--json'],
      env,
    );
    expect(created.exitCode, created.stderr).toBe(0);
    const key = json<{ id: string; rateLimitPerHour: number; monthlyLimit: number }>(created);
    expect(key).toMatchObject({ rateLimitPerHour: 500, monthlyLimit: 20000 });
    const listed = await mem(['keys', 'list'], env);
    expect(listed.stdout).toMatch(/laptop-app.*500\/h, 20000\/mo/);

    const refused = await mem(['keys', 'delete', key.id], env);
    expect(refused.exitCode).toBe(2);
    expect((await mem(['keys', 'delete', key.id, '--yes'], env)).exitCode).toBe(0);

    const keys = json<{ keys: { id: string; current?: boolean }[] }>(await mem(['keys', 'list', '--json'], env)).keys;
    const mine = keys.find((entry) => entry.current);
    expect(mine).toBeTruthy();
    const regenerated = await mem(['keys', 'regenerate', mine?.id ?? '', '--yes'], env);
    expect(regenerated.exitCode, regenerated.stderr).toBe(0);
    expect(regenerated.stdout).toMatch(/the new value is stored for it/);
    const still = await mem(['ls', '--json'], env);
    expect(still.exitCode, still.stderr).toBe(0);
  });
});

describe('saving URLs and files from the CLI', () => {
  it('mem save <url> and mem save --file, idempotent', async () => {
    const { createServer } = await import('node:http');
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const page = '<html><head><title>Kite Festival</title></head><body><article><h1>Kite Festival</h1><p>The kite festival on the beach starts at noon on Saturday, with a parade of dragon kites.</p></article></body></html>';
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(page));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/kites`;
    try {
      const first = await mem(['save', url, '--tags', 'events', '--json'], env);
      expect(first.exitCode, first.stderr).toBe(0);
      const saved = json<{ documentId: string; data: { title: string } }>(first);
      expect(saved.data.title).toBe('Kite Festival');
      const again = await mem(['save', url], env);
      expect(again.stdout).toMatch(new RegExp(`Unchanged ${saved.documentId}`));
      const missing = await mem(['save', `${url.replace(/\/kites$/, '')}:1/none`], env);
      expect(missing.exitCode).toBe(8);
      expect(missing.stderr).toMatch(/error\[INVALID_URL\]/);

      const file = join(home.dir, 'recipe.md');
      writeFileSync(file, '# Pancakes\n\nTwo eggs, a cup of flour, a cup of milk.\n');
      const upload = await mem(['save', '--file', file, '--tags', 'food', '--json'], env);
      expect(upload.exitCode, upload.stderr).toBe(0);
      const uploaded = json<{ documentId: string }>(upload);
      const shown = json<{ data: { title: string; metadata: Record<string, unknown>; tags: string[] } }>(await mem(['get', uploaded.documentId, '--json'], env)).data;
      expect(shown).toMatchObject({ title: 'Pancakes', tags: ['food'], metadata: { filename: 'recipe.md', mimeType: 'text/markdown' } });
      const noFile = await mem(['save', '--file', join(home.dir, 'nope.md')], env);
      expect(noFile.exitCode).toBe(2);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
