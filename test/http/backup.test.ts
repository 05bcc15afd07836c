import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreBackup } from '../../daemon/restore.js';
import type { BackupResponse, ListResponse, Memory, SearchResponse } from '../../src/api/contract.js';
import { loadConfig } from '../../src/config/load-config.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';
import { tempHome } from '../helpers/temp-home.js';
import { SCHEMA_VERSION } from '../../src/store/lancedb/schema.js';

let a: TestApp;
/** Saves made while the backup runs. */
const WRITES = 20;
const backups = tempHome('mem-backups-');
const before: string[] = [];

const TOPICS = ['lighthouse keepers on the Orkney islands', 'sourdough starter feeding schedule', 'Kubernetes ingress TLS renewal', 'the migration of arctic terns', 'Bach cello suites fingering', 'repairing a 1970s racing bicycle'];

beforeAll(async () => {
  a = await createTestApp();
  for (const topic of TOPICS) {
    const response = await a.request({ method: 'POST', url: '/v1/save', payload: { content: `Notes about ${topic}.`, tags: ['before'] } });
    expect(response.statusCode).toBe(201);
    before.push(response.json<{ documentId: string }>().documentId);
  }
});

afterAll(async () => {
  await a.close();
  backups.remove();
  await closeTestEmbedder();
});

async function all(t: TestApp): Promise<Memory[]> {
  const response = await t.request({ method: 'GET', url: '/v1/memories?limit=100' });
  return response.json<ListResponse>().data;
}

describe('mem backup while writes happen, restore into a fresh home', () => {
  let backup: BackupResponse;
  const dir = join(backups.dir, 'snapshot');

  beforeAll(async () => {
    // A chain of saves keeps writing; once a few have landed the backup starts, and the chain goes on.
    let landed = 0;
    let started = () => {};
    const backupMayStart = new Promise<void>((resolve) => (started = resolve));
    const chain = (async () => {
      for (let i = 0; i < WRITES; i++) {
        const saved = await a.request({ method: 'POST', url: '/v1/save', payload: { content: `Concurrent note number ${i} about tide tables.`, tags: ['during'] } });
        expect(saved.statusCode).toBe(201);
        if (++landed === 3) started();
      }
    })();
    await backupMayStart;
    const response = await a.request({ method: 'POST', url: '/v1/admin/backup', payload: { path: dir } });
    expect(response.statusCode, response.body).toBe(200);
    await chain;
    backup = response.json<BackupResponse>();
  });

  it('writes a manifest with versions and row counts next to the copied tables', () => {
    expect(backup.path).toBe(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as BackupResponse['manifest'];
    expect(manifest).toEqual(backup.manifest);
    expect(manifest).toMatchObject({ format: 'mem-backup', version: 1, memVersion: expect.any(String), schemaVersion: SCHEMA_VERSION });
    expect(manifest.embedding).toEqual({ modelId: a.deps.embedder.modelId, dimension: a.deps.embedder.dimension });
    const names = manifest.tables.map((table) => table.name);
    expect(names).toEqual(expect.arrayContaining(['memories', 'entities', 'facts', 'edges', 'accounts', 'watches']));
    const memories = manifest.tables.find((table) => table.name === 'memories')?.rows ?? 0;
    expect(memories).toBeGreaterThanOrEqual(TOPICS.length + 3);
    expect(memories).toBeLessThanOrEqual(TOPICS.length + WRITES);
    expect(existsSync(join(dir, 'lancedb', 'memories.lance'))).toBe(true);
  });

  it('restores into a fresh home: the tables open, the counts match, every memory is whole and searches agree', async () => {
    const home = tempHome('mem-restored-');
    try {
      const report = await restoreBackup(loadConfig({ env: home.env }), dir, { apiKey: a.key });
      expect(report).toMatchObject({ movedAside: null, dataDir: join(home.dir, 'data', 'lancedb'), apiKey: 'valid' });
      const b = await createTestApp({ home, keepHome: true });
      try {
        const restored = await all(b);
        expect(restored.length).toBe(backup.manifest.tables.find((table) => table.name === 'memories')?.rows);
        for (const id of before) expect(restored.map((memory) => memory.id)).toContain(id);
        // Each restored memory is the original one, complete (a torn copy would lose rows or vectors).
        const original = new Map((await all(a)).map((memory) => [memory.id, memory]));
        for (const memory of restored) expect(memory).toEqual(original.get(memory.id));
        const status = (await b.request({ method: 'GET', url: '/v1/status' })).json<{ vectors: { missing: number } }>();
        expect(status.vectors.missing).toBe(0);
        for (const topic of TOPICS.slice(0, 3)) {
          const query = { query: topic, threshold: 0, limit: 3 };
          const [x, y] = await Promise.all([
            a.request({ method: 'POST', url: '/v1/search', payload: query }),
            b.request({ method: 'POST', url: '/v1/search', payload: query }),
          ]);
          const top = (response: { json: <T>() => T }) => response.json<SearchResponse>().results[0]?.id;
          expect(top(y)).toBe(top(x));
          expect(original.get(top(y) ?? '')?.content).toContain(topic);
        }
      } finally {
        await b.close();
      }
    } finally {
      home.remove();
    }
  });

  it('restoring over existing data moves it aside; a running daemon, a damaged or foreign directory is refused', async () => {
    const home = tempHome('mem-restore-over-');
    try {
      const b = await createTestApp({ home, keepHome: true });
      await b.close();
      const loaded = loadConfig({ env: home.env });
      mkdirSync(loaded.paths.stateDir, { recursive: true });
      writeFileSync(loaded.paths.runFile, JSON.stringify({ pid: process.pid, url: 'http://127.0.0.1:1', version: 'x', startedAt: new Date().toISOString() }));
      await expect(restoreBackup(loaded, dir)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/running/) });
      writeFileSync(loaded.paths.runFile, '{}');

      await expect(restoreBackup(loaded, backups.dir)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/not a mem backup/) });
      const damaged = join(backups.dir, 'damaged');
      mkdirSync(damaged);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as BackupResponse['manifest'];
      writeFileSync(join(damaged, 'manifest.json'), JSON.stringify({ ...manifest, tables: manifest.tables.map((table) => ({ ...table, rows: table.rows + 1 })) }));
      await expect(restoreBackup(loaded, damaged)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/does not match its manifest/) });

      const report = await restoreBackup(loaded, dir, { now: Date.parse('2026-03-04T05:06:07Z'), apiKey: 'mem_live_not_a_key' });
      expect(report.movedAside).toBe(`${loaded.storageUri}.bak-20260304T050607Z`);
      expect(report.apiKey).toBe('unknown');
      expect(existsSync(join(report.movedAside ?? '', 'memories.lance'))).toBe(true);
      const c = await createTestApp({ home, keepHome: true });
      try {
        expect((await all(c)).length).toBe(manifest.tables.find((table) => table.name === 'memories')?.rows);
      } finally {
        await c.close();
      }
    } finally {
      home.remove();
    }
  });

  it('only the owner backs up, into a new or empty absolute directory', async () => {
    const relative = await a.request({ method: 'POST', url: '/v1/admin/backup', payload: { path: 'relative/dir' } });
    expect(relative.statusCode).toBe(400);
    const notEmpty = await a.request({ method: 'POST', url: '/v1/admin/backup', payload: { path: dir } });
    expect(notEmpty.statusCode).toBe(400);
    expect(notEmpty.json()).toMatchObject({ error: 'VALIDATION_ERROR', message: expect.stringMatching(/not empty/) });
    const inside = await a.request({ method: 'POST', url: '/v1/admin/backup', payload: { path: join(a.deps.storage.uri, 'x') } });
    expect(inside.statusCode).toBe(400);
    const user = await a.request({ method: 'POST', url: '/admin/users', payload: { email: 'bo@example.org', name: 'Bo' } });
    const key = user.json<{ key: { key: string } }>().key.key;
    const forbidden = await a.request({ method: 'POST', url: '/v1/admin/backup', payload: { path: join(backups.dir, 'bo') }, headers: { authorization: `Bearer ${key}` } });
    expect(forbidden.statusCode).toBe(403);
    expect(existsSync(join(backups.dir, 'bo'))).toBe(false);
  });
});
