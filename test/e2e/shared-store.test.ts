import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AZURITE_KEY, startAzurite, startUnconditionalProxy, type Azurite } from '../helpers/azurite.js';
import { freePort, json, mem } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * Two daemons, each with its own home (state, logs, port), on one az:// store served by Azurite on
 * 127.0.0.1: they behave as one service. Nothing here reaches beyond 127.0.0.1.
 */
const LEASE_MS = 3000;
const homes = [tempHome('mem-e2e-shared-a-'), tempHome('mem-e2e-shared-b-')];
let azurite: Azurite;
let envs: NodeJS.ProcessEnv[] = [];
let bases: string[] = [];
let ownerKey = '';

type Json = Record<string, any>;

async function call(daemon: number, path: string, init: RequestInit = {}, key = ownerKey): Promise<{ status: number; body: Json }> {
  const response = await fetch((bases[daemon] as string) + path, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
  return { status: response.status, body: (await response.json()) as Json };
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function memoriesTagged(daemon: number, tag: string): Promise<Json[]> {
  const all: Json[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await call(daemon, `/v1/memories?tags=${tag}&limit=100&offset=${offset}`);
    all.push(...(page.body.data as Json[]));
    if (!page.body.pagination.hasMore) return all;
  }
}

beforeAll(async () => {
  azurite = await startAzurite();
  await azurite.createContainer('mem');
  const shared = {
    ...azurite.env,
    MEM_STORAGE_URI: `az://mem/shared-${Date.now()}`,
    MEM_LEASE_MS: String(LEASE_MS),
  };
  envs = [];
  bases = [];
  for (const home of homes) {
    const port = await freePort();
    envs.push({ ...home.env, ...shared, MEM_PORT: String(port) });
    bases.push(`http://127.0.0.1:${port}`);
  }
  // The first daemon reads the account key from Azure's standard variable, the second from storage.options.
  const { AZURE_STORAGE_ACCOUNT_KEY: accountKey, ...withoutKey } = envs[1] as NodeJS.ProcessEnv;
  envs[1] = { ...withoutKey, MEM_STORAGE_OPTIONS: JSON.stringify({ azure_storage_account_key: accountKey }) };
  // One after the other: the first creates the tables and the owner, the second finds them.
  for (const env of envs) {
    const started = await mem(['daemon', 'start', '--json'], env);
    expect(started.exitCode, started.stderr).toBe(0);
  }
  ownerKey = (await mem(['token'], envs[0] as NodeJS.ProcessEnv)).stdout.trim();
  expect(ownerKey).toMatch(/^svc_live_/);
}, 180_000);

afterAll(async () => {
  for (const env of envs) await mem(['daemon', 'stop'], env);
  await azurite?.stop();
  for (const home of homes) home.remove();
});

describe('two daemons on one az:// store', () => {
  it('a memory saved through one is found, changed and deleted through the other', async () => {
    const saved = await call(0, '/v1/save', { method: 'POST', body: JSON.stringify({ content: 'The heron nests by the old mill pond every spring.', tags: ['cross'] }) });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const id = saved.body.data.id as string;
    expect(id).toMatch(/^mem_/);
    const found = await waitFor(
      () => call(1, '/v1/search', { method: 'POST', body: JSON.stringify({ query: 'where does the heron nest?' }) }),
      (result) => (result.body.results as Json[]).some((hit) => hit.id === id),
    );
    expect(found.status).toBe(200);

    // The CLI pointed at the second daemon (its own home, the owner's key) sees it too.
    const cli = await mem(['get', id, '--json'], { ...envs[1], MEM_API_KEY: ownerKey });
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(json<{ data: { content: string } }>(cli).data.content).toContain('heron');

    const updated = await call(1, `/v1/memory/${id}`, { method: 'PATCH', body: JSON.stringify({ tags: ['cross', 'changed'] }) });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    await waitFor(() => call(0, `/v1/memory/${id}`), (result) => JSON.stringify(result.body).includes('changed'));

    const deleted = await call(1, `/v1/memory/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    const gone = await waitFor(() => call(0, `/v1/memory/${id}`), (result) => result.status === 404);
    expect(gone.body.error).toBe('NOT_FOUND');
  });

  it('concurrent saves through both daemons lose nothing', async () => {
    const SAVES = 40;
    const results = await Promise.all(
      Array.from({ length: SAVES }, (_, i) =>
        call(i % 2, '/v1/save', { method: 'POST', body: JSON.stringify({ content: `Concurrent note ${i} about the tide at pier ${i}.`, tags: ['burst'] }) }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(Array(SAVES).fill(201));
    for (const daemon of [0, 1]) {
      const seen = await waitFor(() => memoriesTagged(daemon, 'burst'), (list) => list.length >= SAVES);
      expect(seen).toHaveLength(SAVES);
      expect(new Set(seen.map((memory) => memory.content)).size).toBe(SAVES);
    }
  });

  it('a key regenerated through one daemon is refused by the other', async () => {
    const created = await call(0, '/keys', { method: 'POST', body: JSON.stringify({ name: 'roaming' }) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, key: oldKey } = created.body.data as { id: string; key: string };
    // The other daemon accepts it (and caches it).
    await waitFor(() => call(1, '/v1/memories?limit=1', {}, oldKey), (result) => result.status === 200);

    const regenerated = await call(0, `/keys/${id}/regenerate`, { method: 'POST' });
    expect(regenerated.status).toBe(200);
    const newKey = regenerated.body.data.key as string;
    const refused = await waitFor(() => call(1, '/v1/memories?limit=1', {}, oldKey), (result) => result.status === 401);
    expect(refused.body.error).toBe('UNAUTHORIZED');
    expect((await waitFor(() => call(1, '/v1/memories?limit=1', {}, newKey), (result) => result.status === 200)).status).toBe(200);
  });

  it('an ingest job whose daemon is killed (SIGKILL) is finished by the other, each item once', async () => {
    const ITEMS = 150;
    const items = Array.from({ length: ITEMS }, (_, i) => ({ content: `Takeover note ${i}: the lighthouse keeper logged ship ${i}.`, tags: ['takeover'] }));
    const submitted = await call(0, '/v1/ingest', { method: 'POST', body: JSON.stringify({ items }) });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const jobId = submitted.body.jobId as string;

    const midway = await waitFor(() => call(0, `/v1/ingest/status/${jobId}`), (result) => result.body.progress?.completed >= 10);
    expect(midway.body.status).toBe('processing');
    const { pid } = json<{ pid: number }>(await mem(['daemon', 'status', '--json'], envs[0] as NodeJS.ProcessEnv));
    process.kill(pid, 'SIGKILL');

    const done = await waitFor(() => call(1, `/v1/ingest/status/${jobId}`), (result) => result.body.status === 'completed', 180_000);
    expect(done.body.progress).toMatchObject({ total: ITEMS, completed: ITEMS, failed: 0 });
    const stored = await memoriesTagged(1, 'takeover');
    expect(stored).toHaveLength(ITEMS);
    expect(new Set(stored.map((memory) => memory.content)).size).toBe(ITEMS);
    expect(new Set(done.body.documents as string[]).size).toBe(ITEMS);
    // Each one whole: an item the killed daemon stored without its vectors was saved again, not counted done.
    expect((await call(1, '/v1/status')).body.vectors).toEqual({ missing: 0 });
  }, 240_000);
});

describe('credentials and checks', () => {
  it('storage.options stays secret: config list and the daemon log never show it', async () => {
    const env = envs[1] as NodeJS.ProcessEnv;
    const list = await mem(['config', 'list', '--json'], env);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).not.toContain(AZURITE_KEY);
    const entries = (JSON.parse(list.stdout) as { keys: { key: string; value: unknown; origin: string }[] }).keys;
    expect(entries.find((entry) => entry.key === 'storage.options')).toMatchObject({ value: '(set, not shown)', origin: 'env' });
    const human = await mem(['config', 'get', 'storage.options'], env);
    expect(human.stdout.trim()).toBe('(set, not shown)');
    const bad = await mem(['config', 'set', 'storage.options', `{"azure_storage_account_key": 5, "x": "${AZURITE_KEY}"}`], env);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr + bad.stdout).not.toContain(AZURITE_KEY);
    for (const home of homes) expect(readFileSync(join(home.dir, 'state', 'daemon.log'), 'utf8')).not.toContain(AZURITE_KEY);
  });

  it('mem doctor reports the object store: conditional writes proven, read latency', async () => {
    const doctor = await mem(['doctor', '--json'], { ...envs[1], MEM_API_KEY: ownerKey });
    const checks = JSON.parse(doctor.stdout) as { name: string; status: string; message: string }[];
    const storage = checks.find((entry) => entry.name === 'storage');
    expect(storage?.status, JSON.stringify(storage)).toBe('ok');
    expect(storage?.message).toMatch(/^az:\/\/mem\/shared-\d+ \(object store, conditional writes proven at start in \d+ ms\), a read took [\d.]+ ms/);
  });

  it('a bad storage URI or a missing container stops the start with the reason', async () => {
    const home = tempHome('mem-e2e-badstore-');
    try {
      const base = { ...home.env, ...azurite.env, MEM_PORT: String(await freePort()) };
      const scheme = await mem(['serve'], { ...base, MEM_STORAGE_URI: 'ftp://example/x' });
      expect(scheme.exitCode).toBe(2);
      expect(scheme.stderr).toMatch(/error\[VALIDATION_ERROR\].*unsupported scheme "ftp:\/\/"/);
      const missing = await mem(['serve'], { ...base, MEM_STORAGE_URI: 'az://no-such-container/x' });
      expect(missing.exitCode).toBe(2);
      expect(missing.stderr).toMatch(/error\[VALIDATION_ERROR\].*cannot be reached or written/);
      expect(missing.stderr).toMatch(/container or bucket \(it must exist\)/);
      expect(missing.stderr).not.toContain(AZURITE_KEY);
    } finally {
      home.remove();
    }
  }, 120_000);
});

describe('a store without conditional writes', () => {
  it('is refused at start, with the reason and the override; the override starts one daemon', async () => {
    const proxy = await startUnconditionalProxy(azurite);
    const home = tempHome('mem-e2e-unsafe-');
    const env = { ...home.env, ...proxy.env, MEM_STORAGE_URI: `az://mem/unsafe-${Date.now()}`, MEM_PORT: String(await freePort()) };
    try {
      const refused = await mem(['serve'], env);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toMatch(/error\[VALIDATION_ERROR\].*accepted a second create-if-absent/);
      expect(refused.stderr).toMatch(/would lose writes/);
      expect(refused.stderr).toMatch(/storage\.allowUnsafe/);

      const forced = { ...env, MEM_STORAGE_ALLOW_UNSAFE: '1' };
      const started = await mem(['daemon', 'start', '--json'], forced);
      expect(started.exitCode, started.stderr).toBe(0);
      const saved = await mem(['save', 'One daemon on an unsafe store, on purpose.'], forced);
      expect(saved.exitCode, saved.stderr).toBe(0);
      const doctor = JSON.parse((await mem(['doctor', '--json'], forced)).stdout) as { name: string; status: string; message: string }[];
      expect(doctor.find((entry) => entry.name === 'storage')).toMatchObject({ status: 'warn', message: expect.stringMatching(/NO conditional writes.*storage\.allowUnsafe/) });
      await mem(['daemon', 'stop'], forced);
    } finally {
      await proxy.stop();
      home.remove();
    }
  }, 120_000);
});
