import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../src/core/types.js';
import { openLanceStore, type LanceStore, type SearchCompactionReport } from '../../src/store/lancedb/lancedb-store.js';
import { chunksTableName } from '../../src/store/lancedb/schema.js';

const DIM = 4;
const WORDS = ['harbor', 'lantern', 'orchard', 'granite', 'meadow', 'falcon', 'copper', 'willow'];
const dirs: string[] = [];
const stores: LanceStore[] = [];
/** Background compactions that failed: none may. */
const errors: unknown[] = [];

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  expect(errors.splice(0).map(String)).toEqual([]);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function vec(i: number): Float32Array {
  const v = new Float32Array([1, (i % 5) + 1, (i % 3) + 0.5, i % 7]);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function memory(i: number): MemoryRecord {
  const content = `note ${i} about the ${WORDS[i % WORDS.length]} and the ${WORDS[(i * 3 + 1) % WORDS.length]}`;
  return {
    id: `mem_${String(i).padStart(4, '0')}`,
    title: `note ${i}`,
    content,
    description: '',
    context: '',
    author: '',
    tags: i % 2 === 0 ? ['even'] : [],
    metadata: {},
    spaceId: '',
    createdAt: 1_000 + i,
    updatedAt: null,
    contentHash: `hash-${i}`,
    turbo: false,
  };
}

async function open(options: {
  /** Omitted: the store's default. */
  compactSearchTablesEvery?: number;
  maintainEveryWrites?: number;
  onSearchTablesCompacted?: (report: SearchCompactionReport) => void;
}) {
  const dir = mkdtempSync(join(tmpdir(), 'mem-search-compaction-'));
  dirs.push(dir);
  const store = await openLanceStore({
    uri: dir,
    vectorSpace: { modelId: 'test/model', dimension: DIM },
    maintainEveryWrites: 0,
    onMaintenanceError: (error) => errors.push(error),
    ...options,
  });
  stores.push(store);
  return { dir, store };
}

/** Fragments of a table as LanceDB reports them, read through a connection of its own. */
async function fragments(dir: string, table: string): Promise<number> {
  const db = await lancedb.connect(dir);
  try {
    return (await (await db.openTable(table)).stats()).fragmentStats.numFragments;
  } finally {
    db.close();
  }
}

const CHUNKS = chunksTableName('test/model', DIM);

/** Hits in a canonical order: equal scores come back in storage order, which compaction changes. */
function byScore<T extends { memoryId: string; seq: number } & ({ score: number } | { similarity: number })>(hits: readonly T[]): T[] {
  const score = (hit: T) => ('score' in hit ? hit.score : hit.similarity);
  return [...hits].sort((x, y) => score(y) - score(x) || x.memoryId.localeCompare(y.memoryId) || x.seq - y.seq);
}

describe('compaction of the search tables', () => {
  it('runs after N commits to the memories and passages tables and leaves every search result identical', async () => {
    const reports: SearchCompactionReport[] = [];
    let compacted!: () => void;
    const done = new Promise<void>((resolve) => (compacted = resolve));
    const busy = await open({
      compactSearchTablesEvery: 12,
      onSearchTablesCompacted: (report) => {
        reports.push(report);
        compacted();
      },
    });
    const reference = await open({ compactSearchTablesEvery: 0 });
    for (let i = 0; i < 12; i++) {
      for (const { store } of [busy, reference]) {
        await store.memories('usr_a').insert(memory(i), [{ seq: 0, text: memory(i).content, vector: vec(i) }]);
      }
    }
    // Each insert commits once to each table, both at once: the first of the two twelfth commits starts a
    // compaction of both (the other table's twelfth may land beside it and stay a fragment of its own).
    await done;
    expect(reports).toHaveLength(1);
    expect(reports[0]?.tables).toEqual(['memories', CHUNKS]);
    expect(reports[0]?.compactedFragments).toBeGreaterThan(0);
    expect(await fragments(busy.dir, 'memories')).toBeLessThanOrEqual(2);
    expect(await fragments(busy.dir, CHUNKS)).toBeLessThanOrEqual(2);
    // Without it, every commit is still a fragment a search reads.
    expect(await fragments(reference.dir, 'memories')).toBe(12);
    expect(await fragments(reference.dir, CHUNKS)).toBe(12);

    const a = busy.store.memories('usr_a');
    const b = reference.store.memories('usr_a');
    for (let i = 0; i < 4; i++) {
      expect(byScore(await a.vectorSearch(vec(i), {}, 10))).toEqual(byScore(await b.vectorSearch(vec(i), {}, 10)));
      const even = await a.vectorSearch(vec(i), { tags: ['even'] }, 5);
      expect(even).toHaveLength(5);
      expect(byScore(even)).toEqual(byScore(await b.vectorSearch(vec(i), { tags: ['even'] }, 5)));
    }
    for (const word of WORDS) {
      const hits = await a.keywordSearch(word, {}, 10);
      expect(hits.length).toBeGreaterThan(0);
      expect(byScore(hits)).toEqual(byScore(await b.keywordSearch(word, {}, 10)));
    }
    expect(await a.list({}, { limit: 50, offset: 0 })).toEqual(await b.list({}, { limit: 50, offset: 0 }));
    expect(await a.count()).toBe(12);
  });

  it('compacts only the tables that took commits since the last compaction', async () => {
    const { store } = await open({ compactSearchTablesEvery: 0 });
    expect(await store.compactSearchTables()).toMatchObject({ tables: [], compactedFragments: 0 });
    const records = store.memories('usr_b');
    const record = memory(1);
    await records.insert(record, [{ seq: 0, text: record.content, vector: vec(1) }]);
    await records.replace({ ...record, tags: ['edited'] });
    expect((await store.compactSearchTables())?.tables).toEqual(['memories', CHUNKS]);
    expect(await store.compactSearchTables()).toMatchObject({ tables: [], compactedFragments: 0 });
    // The memory store's other writes go through the other tables' writers, never counted here.
    await store.accounts.create({
      id: 'usr_b',
      email: 'b@example.com',
      name: 'B',
      company: '',
      tier: 'free',
      createdAt: 1,
      settings: { defaultSpace: '', timezone: 'UTC', language: 'en' },
      isOwner: false,
    });
    expect(await store.compactSearchTables()).toMatchObject({ tables: [] });
    expect((await records.get(record.id))?.tags).toEqual(['edited']);
  });

  it('by default compacts a few commits once writes stop: five, far below the count', async () => {
    let compacted!: (report: SearchCompactionReport) => void;
    const done = new Promise<SearchCompactionReport>((resolve) => (compacted = resolve));
    const { dir, store } = await open({ onSearchTablesCompacted: (report) => compacted(report) });
    const records = store.memories('usr_q');
    for (let i = 0; i < 5; i++) await records.insert(memory(i), [{ seq: 0, text: memory(i).content, vector: vec(i) }]);
    // The count is far off: only the quiet rule can start this one (two seconds after the last commit).
    const report = await done;
    expect(report.tables).toHaveLength(2);
    expect(await fragments(dir, 'memories')).toBe(1);
    expect(await fragments(dir, CHUNKS)).toBe(1);
  });

  it('never loses a write made while it runs, with writes of every kind going on', async () => {
    const reports: SearchCompactionReport[] = [];
    const { dir, store } = await open({ compactSearchTablesEvery: 3, onSearchTablesCompacted: (report) => reports.push(report) });
    const records = store.memories('usr_c');
    const saved = Array.from({ length: 40 }, (_, i) => memory(i));
    // Concurrent inserts, edits and deletes, so commits land while compactions run.
    await Promise.all(
      saved.map(async (record, i) => {
        await records.insert(record, [{ seq: 0, text: record.content, vector: vec(i) }]);
        if (i % 4 === 0) await records.replace({ ...record, tags: ['edited'] });
        if (i % 10 === 9) await records.delete([record.id]);
      }),
    );
    // A compaction still running from the trigger is shared by the first call; the second covers every write.
    await store.compactSearchTables();
    const direct = await store.compactSearchTables();
    expect(direct).not.toBeNull();
    expect(reports.length).toBeGreaterThan(0);
    expect(await records.count()).toBe(36);
    expect((await records.list({ tags: ['edited'] }, { limit: 50, offset: 0 })).total).toBe(10);
    expect(await fragments(dir, 'memories')).toBe(1);
  });

  it('reports the commits waiting and the compactions done, for GET /v1/status', async () => {
    const { store } = await open({ compactSearchTablesEvery: 0 });
    const records = store.memories('usr_l');
    expect(store.searchTablesLoad?.()).toEqual({ pendingCommits: 0, compactions: 0, compactionMs: 0, vectorIndexParts: null, pendingPassages: 0 });
    for (let i = 0; i < 3; i++) await records.insert(memory(i), [{ seq: 0, text: memory(i).content, vector: vec(i) }]);
    // A commit is counted just after its writer lets the caller go on: one turn of the event loop later.
    await new Promise((resolve) => setImmediate(resolve));
    // Three commits to each table: the count of the larger.
    expect(store.searchTablesLoad?.()).toMatchObject({ pendingCommits: 3, compactions: 0 });
    const report = await store.compactSearchTables();
    expect(report).not.toBeNull();
    const load = store.searchTablesLoad?.();
    expect(load).toMatchObject({ pendingCommits: 0, compactions: 1, vectorIndexParts: null });
    expect(load?.compactionMs).toBe(report?.durationMs);
  });

  it('gives way to a full maintenance pass, which compacts the search tables too', async () => {
    const { dir, store } = await open({ compactSearchTablesEvery: 0 });
    const records = store.memories('usr_d');
    for (let i = 0; i < 5; i++) await records.insert(memory(i), [{ seq: 0, text: memory(i).content, vector: vec(i) }]);
    const pass = store.maintain();
    // While the pass runs the search tables are its to compact.
    expect(await store.compactSearchTables()).toBeNull();
    await pass;
    expect(await fragments(dir, CHUNKS)).toBe(1);
    // The pass covered the commits counted before it.
    expect(await store.compactSearchTables()).toMatchObject({ tables: [] });
  });

  it('leaves the search tables out of the background full pass, and their commits do not start one', async () => {
    const { dir, store } = await open({ compactSearchTablesEvery: 1000, maintainEveryWrites: 2 });
    const events: string[] = [];
    const passes: Promise<unknown>[] = [];
    let passed!: () => void;
    const first = new Promise<void>((resolve) => (passed = resolve));
    const maintain = store.maintain.bind(store);
    store.maintain = (options?: { searchTables?: boolean }) => {
      events.push(`pass searchTables=${String(options?.searchTables ?? true)}`);
      const pass = maintain(options);
      passes.push(pass);
      void pass.finally(passed);
      return pass;
    };
    const records = store.memories('usr_p');
    for (let i = 0; i < 6; i++) await records.insert(memory(i), [{ seq: 0, text: memory(i).content, vector: vec(i) }]);
    events.push('saved');
    // Twelve commits to the search tables, then two to another table: only those start the pass.
    const usage = { accountId: 'usr_p', keyId: 'key_p', keyType: 'live' as const, method: 'POST', endpoint: '/v1/search', status: 200, latencyMs: 3 };
    await store.usage.append([{ ...usage, at: 1 }]);
    await store.usage.append([{ ...usage, at: 2 }]);
    await first;
    await Promise.all(passes);
    expect(events).toEqual(['saved', 'pass searchTables=false']);
    // The pass compacted the table it was started for and left the passages' six fragments to their own compaction.
    expect(await fragments(dir, 'usage_events')).toBe(1);
    expect(await fragments(dir, CHUNKS)).toBe(6);
    expect(await fragments(dir, 'memories')).toBe(6);
    // An explicit pass (the daemon's timer, a backup's caller) still covers every table.
    await maintain();
    expect(await fragments(dir, CHUNKS)).toBe(1);
    expect(await fragments(dir, 'memories')).toBe(1);
  });

  it('counts the search tables towards the full pass when they have no compaction of their own', async () => {
    const { dir, store } = await open({ compactSearchTablesEvery: 0, maintainEveryWrites: 4 });
    let passed!: (report: unknown) => void;
    const pass = new Promise((resolve) => (passed = resolve));
    const maintain = store.maintain.bind(store);
    store.maintain = (options?: { searchTables?: boolean }) => {
      const running = maintain(options);
      void running.then(passed);
      return running;
    };
    const records = store.memories('usr_q');
    for (let i = 0; i < 2; i++) await records.insert(memory(i), [{ seq: 0, text: memory(i).content, vector: vec(i) }]);
    await pass;
    await store.maintain();
    expect(await fragments(dir, CHUNKS)).toBe(1);
  });

  it('compacts the last commits of a burst once writes stop, from a quarter of the threshold', async () => {
    let compacted!: (report: SearchCompactionReport) => void;
    const done = new Promise<SearchCompactionReport>((resolve) => (compacted = resolve));
    const { dir, store } = await open({ compactSearchTablesEvery: 20, onSearchTablesCompacted: (report) => compacted(report) });
    const records = store.memories('usr_q');
    // Five commits to each table: a quarter of 20, never 20; the compaction comes when no commit has come for a while.
    for (let i = 0; i < 5; i++) await records.insert(memory(i), [{ seq: 0, text: memory(i).content, vector: vec(i) }]);
    expect(await fragments(dir, CHUNKS)).toBe(5);
    const report = await done;
    expect(report.tables).toEqual(['memories', CHUNKS]);
    expect(await fragments(dir, CHUNKS)).toBe(1);
    expect(await fragments(dir, 'memories')).toBe(1);
  });

  it('leaves fewer than a quarter of the threshold for the next burst', async () => {
    const reports: SearchCompactionReport[] = [];
    const { dir, store } = await open({ compactSearchTablesEvery: 20, onSearchTablesCompacted: (report) => reports.push(report) });
    const records = store.memories('usr_r');
    for (let i = 0; i < 4; i++) await records.insert(memory(i), [{ seq: 0, text: memory(i).content, vector: vec(i) }]);
    // Past the quiet period (2 s) with room to spare: still four fragments each.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(reports).toEqual([]);
    expect(await fragments(dir, CHUNKS)).toBe(4);
  });
});
