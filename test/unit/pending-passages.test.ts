import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TermStats } from '../../src/core/search/term-stats.js';
import type { MemoryRecord } from '../../src/core/types.js';
import { openLanceStore, type LanceStore } from '../../src/store/lancedb/lancedb-store.js';
import { PendingPassages } from '../../src/store/lancedb/pending-passages.js';

const DIM = 8;
const ACCOUNT = 'usr_p';
const dirs: string[] = [];
const stores: LanceStore[] = [];
const errors: unknown[] = [];

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  expect(errors.splice(0).map(String)).toEqual([]);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const VOCABULARY = ['harbor', 'lantern', 'orchard', 'granite', 'meadow', 'falcon', 'copper', 'willow', 'running', 'runs', 'what', 'river'];

/** Texts of varied lengths, with words repeated within a text and across texts (BM25's tf, dl and df all vary). */
function text(i: number): string {
  const words: string[] = [`note${i}`];
  for (let j = 0; j < 3 + (i % 9); j++) words.push(VOCABULARY[(i * 7 + j * j) % VOCABULARY.length] as string);
  if (i % 4 === 0) words.push('the', 'harbor', 'and', 'harbor');
  return words.join(' ');
}

function vec(i: number): Float32Array {
  const v = Float32Array.from({ length: DIM }, (_, d) => Math.sin(i * 1.7 + d * 0.9) + (d === i % DIM ? 2 : 0));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function memory(i: number, extra: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    id: `mem_${String(i).padStart(4, '0')}`,
    title: '',
    content: text(i),
    description: '',
    context: '',
    author: '',
    tags: i % 2 === 0 ? ['even'] : ['odd'],
    metadata: {},
    spaceId: i % 3 === 0 ? 'work' : '',
    createdAt: 1_000 + i,
    updatedAt: null,
    contentHash: `hash-${i}`,
    turbo: false,
    ...extra,
  };
}

async function open(options: { compactSearchTablesEvery?: number; shared?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mem-pending-passages-'));
  dirs.push(dir);
  const store = await openLanceStore({
    uri: dir,
    vectorSpace: { modelId: 'test/model', dimension: DIM },
    maintainEveryWrites: 0,
    vectorIndexMinRows: 16,
    onMaintenanceError: (error) => errors.push(error),
    ...(options.compactSearchTablesEvery !== undefined ? { compactSearchTablesEvery: options.compactSearchTablesEvery } : {}),
    ...(options.shared ? { shared: { readConsistencyMs: 0 } } : {}),
  });
  stores.push(store);
  return store;
}

async function insert(store: LanceStore, i: number, extra: Partial<MemoryRecord> = {}): Promise<void> {
  const record = memory(i, extra);
  await store.memories(ACCOUNT).insert(record, [{ seq: 0, text: record.content, vector: vec(i) }]);
}

function corpusOf(count: number): TermStats {
  const stats = new TermStats();
  for (let i = 0; i < count; i++) stats.add(text(i));
  return stats;
}

/** A passage's row as the store appends it. */
function row(i: number): Record<string, unknown> {
  const record = memory(i);
  return {
    id: `${record.id}#0`,
    memory_id: record.id,
    account_id: ACCOUNT,
    space_id: record.spaceId,
    tags: record.tags,
    created_at: record.createdAt,
    seq: 0,
    text: record.content,
    vector: Array.from(vec(i)),
  };
}

const QUERIES = ['harbor', 'lantern orchard', 'run', 'what river', 'the harbor', 'copper willow falcon meadow', 'note7 granite'];

describe('passages not yet indexed, searched in the process', () => {
  it('scores a passage with the BM25 of the full-text index (the same scores LanceDB gives it once indexed)', async () => {
    const store = await open({ compactSearchTablesEvery: 0 });
    const count = 40;
    for (let i = 0; i < count; i++) await insert(store, i);
    await store.compactSearchTables();
    const pending = new PendingPassages(() => true);
    pending.add(Array.from({ length: count }, (_, i) => row(i)));
    const corpus = corpusOf(count);
    let compared = 0;
    for (const query of QUERIES) {
      const indexed = await store.memories(ACCOUNT).keywordSearch(query, {}, count);
      const ours = new Map(pending.keyword(ACCOUNT, {}, query, count, corpus).map((hit) => [hit.memoryId, hit.score]));
      expect(indexed.length).toBeGreaterThan(0);
      expect(new Set(ours.keys())).toEqual(new Set(indexed.map((hit) => hit.memoryId)));
      for (const hit of indexed) {
        expect(ours.get(hit.memoryId)).toBeCloseTo(hit.score, 4);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(60);
  });

  it('finds what was saved since the last compaction, with every filter, as a store with everything indexed does', async () => {
    const store = await open();
    const reference = await open({ compactSearchTablesEvery: 0 });
    for (let i = 0; i < 40; i++) {
      await insert(store, i);
      await insert(reference, i);
    }
    // The pass compacts and builds the vector index (16 rows and more): every row indexed.
    await store.maintain();
    expect(store.searchTablesLoad?.()).toMatchObject({ pendingPassages: 0, vectorIndexParts: 1 });
    // Four saves: fewer than the quiet rule compacts, so they stay outside the indexes.
    for (let i = 40; i < 44; i++) {
      await insert(store, i);
      await insert(reference, i);
    }
    await reference.maintain();
    expect(store.searchTablesLoad?.()).toMatchObject({ pendingPassages: 4, vectorIndexParts: 1 });

    const served = store.memories(ACCOUNT);
    const indexed = reference.memories(ACCOUNT);
    const corpus = corpusOf(44);
    const ids = (hits: readonly { memoryId: string }[]) => hits.map((hit) => hit.memoryId);
    const filters = [{}, { tags: ['even'] }, { tags: ['odd'] }, { spaceId: 'work' }, { after: 1_041 }, { before: 1_041 }, { after: 1_010, before: 1_042, tags: ['even'] }];
    for (let i = 38; i < 44; i++) {
      for (const filter of filters) {
        const ours = await served.vectorSearch(vec(i), filter, 10);
        const theirs = await indexed.vectorSearch(vec(i), filter, 10);
        expect(ids(ours)).toEqual(ids(theirs));
        ours.forEach((hit, rank) => expect(hit.similarity).toBeCloseTo(theirs[rank]?.similarity ?? Number.NaN, 5));
        // The full-text index of the served store counts 40 passages, the reference's 44: the same hits, the
        // scores of the indexed ones from slightly different statistics.
        const words = `note${i}`;
        expect(new Set(ids(await served.keywordSearch(words, filter, 10, corpus)))).toEqual(new Set(ids(await indexed.keywordSearch(words, filter, 10))));
      }
      // The new passage is its own nearest, and the only one with its word.
      expect((await served.vectorSearch(vec(i), {}, 1))[0]?.memoryId).toBe(memory(i).id);
      expect(ids(await served.keywordSearch(`note${i}`, {}, 5, corpus))).toEqual([memory(i).id]);
    }
    for (const query of QUERIES) {
      expect(new Set(ids(await served.keywordSearch(query, {}, 50, corpus)))).toEqual(new Set(ids(await indexed.keywordSearch(query, {}, 50))));
    }
  });

  it('stops serving at an edit or a delete, and serves again once a compaction has indexed them', async () => {
    const store = await open();
    for (let i = 0; i < 40; i++) await insert(store, i);
    await store.maintain();
    await insert(store, 40);
    const records = store.memories(ACCOUNT);
    expect(store.searchTablesLoad?.().pendingPassages).toBe(1);

    // An indexed memory's tags change: its passage is rewritten outside the indexes, and no longer the one the
    // vector index holds. A search by the new tag must find it.
    const edited = memory(5);
    await records.replace({ ...edited, tags: ['moved'] });
    expect(store.searchTablesLoad?.().pendingPassages).toBeNull();
    expect((await records.vectorSearch(vec(5), { tags: ['moved'] }, 5)).map((hit) => hit.memoryId)).toEqual([edited.id]);
    expect((await records.keywordSearch('note5', { tags: ['moved'] }, 5, corpusOf(41))).map((hit) => hit.memoryId)).toEqual([edited.id]);
    // The unindexed passage saved before the edit is still found.
    expect((await records.vectorSearch(vec(40), {}, 1))[0]?.memoryId).toBe(memory(40).id);

    await store.compactSearchTables();
    expect(store.searchTablesLoad?.().pendingPassages).toBe(0);
    expect((await records.vectorSearch(vec(5), { tags: ['moved'] }, 5)).map((hit) => hit.memoryId)).toEqual([edited.id]);

    // A deleted memory, saved since the compaction, is gone from every search at once.
    await insert(store, 41);
    expect(store.searchTablesLoad?.().pendingPassages).toBe(1);
    await records.delete([memory(41).id]);
    expect(store.searchTablesLoad?.().pendingPassages).toBeNull();
    expect((await records.vectorSearch(vec(41), {}, 5)).map((hit) => hit.memoryId)).not.toContain(memory(41).id);
    expect((await records.keywordSearch('note41', {}, 5, corpusOf(42))).map((hit) => hit.memoryId)).toEqual([]);
  });

  it('keeps a passage committed while a compaction runs until a later compaction, and completes only after the change', () => {
    const pending = new PendingPassages(() => true);
    pending.markComplete();
    pending.add([row(1)]);
    const first = pending.compactionStarted();
    pending.add([row(2)]);
    pending.compactionEnded(first);
    expect(pending.nearest(ACCOUNT, {}, vec(1), 5).map((hit) => hit.memoryId)).toEqual([memory(2).id]);
    expect(pending.servesVectors()).toBe(true);

    // A change during a compaction: that compaction may not have indexed it, the next one has.
    const during = pending.compactionStarted();
    pending.invalidate();
    pending.compactionEnded(during);
    expect(pending.servesVectors()).toBe(false);
    expect(pending.size).toBe(0);
    const after = pending.compactionStarted();
    pending.compactionEnded(after);
    expect(pending.servesVectors()).toBe(true);
    // Without a vector index there is nothing to ask LanceDB for alone: words are served, vectors are not.
    // A passage appended again under its id is one passage.
    pending.add([row(7)]);
    pending.add([row(7)]);
    expect(pending.keyword(ACCOUNT, {}, 'note7', 10, corpusOf(8)).map((hit) => hit.memoryId)).toEqual([memory(7).id]);
    expect(pending.nearest(ACCOUNT, {}, vec(7), 10).filter((hit) => hit.memoryId === memory(7).id)).toHaveLength(1);
    const unindexed = new PendingPassages(() => false);
    unindexed.markComplete();
    expect([unindexed.servesVectors(), unindexed.servesKeywords()]).toEqual([false, true]);
  });

  it('keeps no more than its capacity: past it, nothing is served until a compaction that started after', () => {
    const pending = new PendingPassages(() => true, 3);
    pending.markComplete();
    pending.add([row(1), row(2)]);
    expect([pending.size, pending.servesKeywords()]).toEqual([2, true]);
    const before = pending.compactionStarted();
    pending.add([row(3), row(4)]);
    expect([pending.size, pending.servesKeywords()]).toEqual([0, false]);
    pending.add([row(5)]);
    // The compaction that ran while the rows overflowed may have missed some of them.
    pending.compactionEnded(before);
    expect(pending.servesKeywords()).toBe(false);
    const after = pending.compactionStarted();
    pending.add([row(6)]);
    pending.compactionEnded(after);
    expect(pending.servesKeywords()).toBe(true);
    expect(pending.keyword(ACCOUNT, {}, 'note5 note6', 10, corpusOf(7)).map((hit) => hit.memoryId)).toEqual([memory(6).id]);
  });

  it('is off on a store shared with other daemons, whose saves it would not see', async () => {
    const store = await open({ shared: true });
    await insert(store, 1);
    expect(store.searchTablesLoad?.().pendingPassages).toBeNull();
  });
});
