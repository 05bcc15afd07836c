import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { AZURITE_ACCOUNT, AZURITE_KEY, startAzurite, startUnconditionalProxy, type Azurite } from '../helpers/azurite.js';
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
let storeUri = '';
/** A folder both daemons' hosts can read (one machine here), watched through the first daemon. */
const watched = mkdtempSync(join(tmpdir(), 'mem-e2e-shared-watch-'));
let watchId = '';

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
  storeUri = `az://mem/shared-${Date.now()}`;
  const shared = {
    ...azurite.env,
    MEM_STORAGE_URI: storeUri,
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
  // Both at once on the fresh store: they create its tables together, and one owner between them.
  const started = await Promise.all(envs.map((env) => mem(['daemon', 'start', '--json'], env)));
  for (const result of started) expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
  const tokens = await Promise.all(envs.map((env) => mem(['token'], env)));
  const keys = tokens.map((token) => token.stdout.trim()).filter((token) => /^svc_live_/.test(token));
  expect(keys, tokens.map((token) => token.stderr).join('\n')).toHaveLength(1);
  ownerKey = keys[0] as string;
}, 180_000);

afterAll(async () => {
  for (const env of envs) await mem(['daemon', 'stop'], env);
  await azurite?.stop();
  for (const home of homes) home.remove();
  rmSync(watched, { recursive: true, force: true });
});

/** Passage rows of the memories with this tag, read from the store itself: all of them, and distinct. */
async function passagesTagged(tag: string): Promise<{ rows: number; distinct: number }> {
  // The emulator's endpoint, read from the environment by LanceDB's object store (as the daemons do).
  process.env.AZURITE_BLOB_STORAGE_URL = azurite.env.AZURITE_BLOB_STORAGE_URL;
  const db = await lancedb.connect(storeUri, {
    storageOptions: { azure_storage_account_name: AZURITE_ACCOUNT, azure_storage_account_key: AZURITE_KEY, azure_storage_use_emulator: 'true', allow_http: 'true' },
  });
  try {
    const name = (await db.tableNames()).find((table) => table.startsWith('chunks'));
    const table = await db.openTable(name as string);
    const rows = (await table.query().where(`array_has(tags, '${tag}')`).select(['id']).toArray()) as { id: string }[];
    return { rows: rows.length, distinct: new Set(rows.map((row) => row.id)).size };
  } finally {
    db.close();
  }
}

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

  it('a watch added through one daemon is listed by both and followed by one: each file once', async () => {
    writeFileSync(join(watched, 'north.md'), 'The north pier gate is locked at nine every evening.');
    writeFileSync(join(watched, 'south.md'), 'The south pier crane was serviced in March.');
    const added = await call(0, '/v1/watches', { method: 'POST', body: JSON.stringify({ path: watched, tags: ['watched'] }) });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    watchId = added.body.watch.id as string;
    await waitFor(() => call(0, `/v1/ingest/status/${added.body.jobId}`), (result) => result.body.status === 'completed');
    const here = await call(0, '/v1/watches');
    expect(here.body.watches).toEqual([expect.objectContaining({ id: watchId, state: 'watching', fileCount: 2 })]);
    // The other daemon lists the watch as `starting` until it sees the watch's lease in the shared store (later on a busy host).
    const other = await waitFor(
      () => call(1, '/v1/watches'),
      (result) => result.body.watches?.[0]?.fileCount === 2 && result.body.watches?.[0]?.state !== 'starting',
    );
    expect(other.body.watches).toEqual([expect.objectContaining({ id: watchId, state: 'elsewhere', fileCount: 2, lastError: null })]);
    // Both daemons sweep for unfollowed watches meanwhile: a new file still makes one memory.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    writeFileSync(join(watched, 'east.md'), 'The east breakwater light flashes green twice.');
    const memories = await waitFor(() => memoriesTagged(1, 'watched'), (list) => list.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await memoriesTagged(1, 'watched')).map((memory) => memory.metadata.filename).sort()).toEqual(['east.md', 'north.md', 'south.md']);
    expect(memories).toHaveLength(3);
  }, 120_000);

  it('an ingest job whose daemon is killed (SIGKILL) is finished by the other, each item once', async () => {
    // One item is a page this test serves only after the kill: the job cannot finish on the first daemon
    // however fast its text items go, so the kill lands mid-job by construction, not by the timing of polls.
    const held: ServerResponse[] = [];
    let release = false;
    const page = '<html><head><title>Harbour log</title></head><body><p>The harbour master logged the late ferry.</p></body></html>';
    const serve = (response: ServerResponse) => {
      if (!response.destroyed) response.writeHead(200, { 'content-type': 'text/html' }).end(page);
    };
    const pageServer = createServer((_request, response) => {
      if (release) serve(response);
      else held.push(response);
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    const pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/harbour`;
    try {
      const TEXTS = 400;
      const texts = Array.from({ length: TEXTS }, (_, i) => ({ content: `Takeover note ${i}: the lighthouse keeper logged ship ${i}.`, tags: ['takeover'] }));
      const items = [...texts, { url: pageUrl, tags: ['takeover'] }];
      const submitted = await call(0, '/v1/ingest', { method: 'POST', body: JSON.stringify({ items }) });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
      const jobId = submitted.body.jobId as string;

      const midway = await waitFor(() => call(0, `/v1/ingest/status/${jobId}`), (result) => result.body.progress?.completed >= 10 && held.length > 0);
      expect(midway.body.status).toBe('processing');
      const { pid } = json<{ pid: number }>(await mem(['daemon', 'status', '--json'], { ...envs[0], MEM_API_KEY: ownerKey }));
      process.kill(pid, 'SIGKILL');
      // Every request held is answered: on a loaded host the other daemon may have taken the job over
      // before the kill (the first one's renewals late) and be waiting for the page too.
      release = true;
      for (const response of held) serve(response);
      // Written while no daemon follows the watched folder (the killed one's lease has not run out yet): the
      // daemon that takes the watch over catches up with it (the last test).
      writeFileSync(join(watched, 'west.md'), 'The west slipway floods at spring tides.');

      const ITEMS = items.length;
      const done = await waitFor(() => call(1, `/v1/ingest/status/${jobId}`), (result) => result.body.status === 'completed', 180_000);
      expect(done.body.progress, JSON.stringify(done.body.errors)).toMatchObject({ total: ITEMS, completed: ITEMS, failed: 0 });
      const stored = await memoriesTagged(1, 'takeover');
      expect(stored).toHaveLength(ITEMS);
      expect(stored.some((memory) => String(memory.content).includes('late ferry'))).toBe(true);
      expect(new Set(stored.map((memory) => memory.content)).size).toBe(ITEMS);
      expect(new Set(done.body.documents as string[]).size).toBe(ITEMS);
      // Each one whole: an item the killed daemon stored without its vectors was saved again, not counted done.
      expect((await call(1, '/v1/status')).body.vectors).toEqual({ missing: 0 });
      // And each passage once: an item saved again replaced whatever passages the killed daemon had committed.
      const passages = await passagesTagged('takeover');
      expect(passages.rows).toBeGreaterThanOrEqual(ITEMS);
      expect(passages.rows).toBe(passages.distinct);
    } finally {
      pageServer.close();
    }
  }, 240_000);

  it("the killed daemon's folder watch is taken over by the other, which catches up with the folder", async () => {
    const taken = await waitFor(() => call(1, '/v1/watches'), (result) => result.body.watches?.[0]?.state === 'watching', 60_000);
    expect(taken.body.watches[0]).toMatchObject({ id: watchId, lastError: null });
    const memories = await waitFor(() => memoriesTagged(1, 'watched'), (list) => list.length >= 4);
    expect(memories.map((memory) => memory.metadata.filename).sort()).toEqual(['east.md', 'north.md', 'south.md', 'west.md']);
    writeFileSync(join(watched, 'north.md'), 'The north pier gate is now locked at ten every evening.');
    await waitFor(() => memoriesTagged(1, 'watched'), (list) => list.some((memory) => String(memory.content).includes('at ten')));
    expect(await memoriesTagged(1, 'watched')).toHaveLength(4);
  }, 120_000);
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
