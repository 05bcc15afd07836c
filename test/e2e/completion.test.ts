import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, mem, ROOT } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * Dynamic shell completion against a real daemon: `mem __complete <kind> [prefix]` lists what the daemon
 * knows, prints nothing when no daemon answers, and the generated bash script calls it at the right places.
 */
const home = tempHome('mem-e2e-completion-');
const root = mkdtempSync(join(tmpdir(), 'mem-completion-'));
const bin = join(root, 'bin');
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  env = { ...home.env, MEM_PORT: String(await freePort()), HOME: root };
  const started = await mem(['daemon', 'start', '--json'], env);
  expect(started.exitCode, started.stderr).toBe(0);
  // The completion scripts run `mem` from PATH, as an installed CLI would be.
  mkdirSync(bin);
  writeFileSync(join(bin, 'mem'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'mem.js')}" "$@"\n`);
  chmodSync(join(bin, 'mem'), 0o755);
  // What the completions below offer: a second key, memories, and the entities extracted from them.
  expect((await mem(['keys', 'create', '--name', 'laptop-app'], env)).exitCode).toBe(0);
  for (const text of ['Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap', 'Sarah Chen sent the Q3 numbers', 'Plant the tomatoes']) {
    expect((await mem(['save', text], env)).exitCode).toBe(0);
  }
});

afterAll(async () => {
  await mem(['daemon', 'stop'], env);
  home.remove();
  rmSync(root, { recursive: true, force: true });
});

const lines = (stdout: string) => stdout.split('\n').filter(Boolean);

/** Runs the generated bash completion for the words typed so far (the last one is under the cursor). */
async function bashComplete(words: string[], environment: NodeJS.ProcessEnv = env): Promise<string[]> {
  const script = `source completions/mem.bash
COMP_WORDS=(${words.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ')})
COMP_CWORD=${words.length - 1}
_mem
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = await execa('bash', ['--norc', '--noprofile', '-c', script], {
    cwd: ROOT,
    env: { ...environment, PATH: `${bin}:${process.env.PATH ?? ''}` },
    reject: false,
    timeout: 30_000,
  });
  expect(result.exitCode, String(result.stderr)).toBe(0);
  return lines(String(result.stdout));
}

describe('mem __complete', () => {
  it('keys: the ids of the API keys', async () => {
    const listed = json<{ keys: { id: string; name: string }[] }>(await mem(['keys', 'list', '--json'], env)).keys;
    const keys = listed.map((key) => key.id);
    expect(keys).toHaveLength(2);
    const result = await mem(['__complete', 'keys'], env);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    expect(lines(result.stdout).sort()).toEqual([...keys].sort());
    const laptop = listed.find((key) => key.name === 'laptop-app');
    expect(lines((await mem(['__complete', '--describe', 'keys'], env)).stdout)).toContain(`${laptop?.id}\tlaptop-app`);
  });

  it('memories: the recent memory ids, newest first; a prefix narrows them', async () => {
    const recent = json<{ data: { id: string }[] }>(await mem(['ls', '--limit', '50', '--json'], env)).data.map((memory) => memory.id);
    const result = await mem(['__complete', 'memories'], env);
    expect(result.exitCode).toBe(0);
    expect(lines(result.stdout)).toEqual(recent);
    const first = recent[0] ?? '';
    expect(lines((await mem(['__complete', 'memories', first.slice(0, -2)], env)).stdout)).toEqual([first]);
    expect((await mem(['__complete', 'memories', 'key_'], env)).stdout).toBe('');
    const described = lines((await mem(['__complete', '--describe', 'memories'], env)).stdout);
    expect(described).toContain(`${first}\tPlant the tomatoes`);
  });

  it('entities: the names that start with the prefix, case-insensitively', async () => {
    const result = await mem(['__complete', 'entities', 'Sar'], env);
    expect(result.exitCode).toBe(0);
    expect(lines(result.stdout)).toEqual(['Sarah Chen']);
    expect(lines((await mem(['__complete', 'entities', 'sar'], env)).stdout)).toEqual(['Sarah Chen']);
    const all = lines((await mem(['__complete', 'entities'], env)).stdout);
    expect(all).toEqual(expect.arrayContaining(['Sarah Chen', 'Acme Corp', 'Berlin']));
    expect(lines((await mem(['__complete', '--describe', 'entities', 'Acme'], env)).stdout)).toEqual(['Acme Corp\tcompany']);
  });

  it('users, watches (by id, and by path with ~) and ingest jobs', async () => {
    const users = json<{ id: string }[]>(await mem(['users', 'list', '--json'], env)).map((user) => user.id);
    expect(lines((await mem(['__complete', 'users'], env)).stdout)).toEqual(users);

    mkdirSync(join(root, 'notes'));
    writeFileSync(join(root, 'notes', 'one.md'), 'A note about sailing boats.');
    const added = json<{ watch: { id: string }; jobId: string }>(await mem(['watch', 'add', '~/notes', '--json'], env));
    expect(lines((await mem(['__complete', 'watches'], env)).stdout)).toEqual([added.watch.id, join(root, 'notes')]);
    expect(lines((await mem(['__complete', 'watches', '~/no'], env)).stdout)).toEqual(['~/notes']);
    expect(lines((await mem(['__complete', 'jobs'], env)).stdout)).toContain(added.jobId);
  });

  it('prints nothing and exits 0 for an unknown kind or when no daemon answers', async () => {
    const unknown = await mem(['__complete', 'planets'], env);
    expect(unknown).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    const none = await mem(['__complete'], env);
    expect(none).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });

    const down = { ...env, MEM_HOST: `http://127.0.0.1:${await freePort()}` };
    const refused = await mem(['__complete', 'keys'], down);
    expect(refused).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    expect(await bashComplete(['mem', 'keys', 'delete', ''], down)).toEqual([]);
  });

  it('gives up on a daemon that accepts the connection but never answers, without starting one', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    const port = await new Promise<number>((resolve) =>
      silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)),
    );
    try {
      // With the CLI's usual 120 s timeout this would be killed at 20 s (exit code not 0); the completion's
      // own timeout ends it first.
      const hung = await mem(['__complete', 'memories', '--start'], { ...env, MEM_HOST: `http://127.0.0.1:${port}` }, { timeout: 20_000 });
      expect(hung).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('the generated bash completion', () => {
  it('completes an option with a fixed set of values', async () => {
    expect(await bashComplete(['mem', 'entities', '--type', ''])).toEqual(['person', 'company', 'product', 'concept', 'location', 'event', 'date']);
    expect(await bashComplete(['mem', 'ask', 'when?', '--model', 's'])).toEqual(['smart']);
    expect(await bashComplete(['mem', 'users', 'set-tier', 'usr_x', ''])).toEqual(['free', 'pro', 'enterprise']);
    expect(await bashComplete(['mem', 'completion', 'z'])).toEqual(['zsh']);
  });

  it('completes the daemon values: entity names quoted for the shell, key and memory ids', async () => {
    expect(await bashComplete(['mem', 'facts', '--entity', 'Sar'])).toEqual(['Sarah\\ Chen']);
    expect(await bashComplete(['mem', 'graph', '-e', 'Sarah\\ C'])).toEqual(['Sarah\\ Chen']);
    const keys = json<{ keys: { id: string }[] }>(await mem(['keys', 'list', '--json'], env)).keys.map((key) => key.id);
    expect((await bashComplete(['mem', 'keys', 'rm', ''])).sort()).toEqual([...keys].sort());
    const recent = json<{ data: { id: string }[] }>(await mem(['ls', '--limit', '50', '--json'], env)).data.map((memory) => memory.id);
    // rm takes many ids: every position after it completes memory ids; options and their values are skipped.
    expect(await bashComplete(['mem', 'rm', '--yes', recent[1] ?? '', ''])).toEqual(recent);
  });

  it('still completes commands and options, and leaves free-form values to the shell', async () => {
    expect(await bashComplete(['mem', 'ent'])).toEqual(['entities']);
    expect(await bashComplete(['mem', 'entities', '--s'])).toEqual(['--search', '--sort', '--start']);
    expect(await bashComplete(['mem', '__c'])).toEqual([]);
    expect(await bashComplete(['mem', 'save', '--title', ''])).toEqual([]);
  });
});
