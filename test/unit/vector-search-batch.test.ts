import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { Storage } from '../../src/core/ports.js';
import { openLanceStore } from '../../src/store/lancedb/lancedb-store.js';
import { and, arrayHasAny, eq } from '../../src/store/lancedb/predicate.js';
import { chunksSchema } from '../../src/store/lancedb/schema.js';
import { VectorSearchBatcher, type VectorSearchShape } from '../../src/store/lancedb/vector-search-batch.js';

const DIM = 16;
const ROWS = 120;

/** Seeded unit vectors: the same table and queries on every run. */
function vectors(seed: number) {
  let state = seed;
  return () => {
    const values = Array.from({ length: DIM }, () => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state / 0x7fffffff - 0.5;
    });
    const norm = Math.hypot(...values);
    return new Float32Array(values.map((value) => value / norm));
  };
}

const nextTick = () => new Promise((resolve) => setImmediate(resolve));
/** What a search answers: passage, order and distance. */
const answer = (rows: Record<string, unknown>[]) => rows.map((row) => [row['memory_id'], row['seq'], row['_distance']]);

let dir: string;
let db: lancedb.Connection;
let table: lancedb.Table;
const query = vectors(7);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-vector-batch-'));
  db = await lancedb.connect(dir);
  table = await db.createEmptyTable('chunks', chunksSchema(DIM));
  const vector = vectors(1);
  await table.add(
    Array.from({ length: ROWS }, (_, i) => ({
      id: `m${i}#0`,
      memory_id: `m${i}`,
      account_id: i % 4 === 0 ? 'usr_b' : 'usr_a',
      space_id: '',
      tags: [i % 3 === 0 ? 'red' : 'blue'],
      created_at: i,
      seq: 0,
      text: `passage ${i}`,
      model: 'test/model',
      vector: Array.from(vector()),
    })),
  );
});

afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The query each search ran on its own before batching. */
async function alone(vector: Float32Array, shape: VectorSearchShape) {
  const base = table.query().nearestTo(vector).distanceType('cosine').where(shape.where);
  return (await (shape.postfilter ? base.postfilter() : base).select(['memory_id', 'seq', 'text', '_distance']).limit(shape.limit).toArray()) as Record<string, unknown>[];
}

describe('vector searches waiting together share one LanceDB query', () => {
  it('answers each of several concurrent searches exactly as its own query would, in one query', async () => {
    for (const postfilter of [true, false]) {
      const batcher = new VectorSearchBatcher(table);
      const shape = { where: eq('account_id', 'usr_a'), postfilter, limit: 10 };
      const queries = Array.from({ length: 6 }, query);
      const batched = await Promise.all(queries.map((vector) => batcher.search(vector, shape)));
      expect(batcher.counts).toEqual({ queries: 1, searches: 6 });
      for (const [index, vector] of queries.entries()) {
        const own = await alone(vector, shape);
        expect(own.length).toBeGreaterThan(postfilter ? 0 : 9);
        expect(answer(batched[index] ?? [])).toEqual(answer(own));
      }
    }
  });

  it('never mixes searches with different filters or depths: each gets its own query and only its rows', async () => {
    const batcher = new VectorSearchBatcher(table);
    const shapes: VectorSearchShape[] = [
      { where: eq('account_id', 'usr_a'), postfilter: true, limit: 10 },
      { where: eq('account_id', 'usr_b'), postfilter: false, limit: 10 },
      { where: and(eq('account_id', 'usr_a'), arrayHasAny('tags', ['red'])), postfilter: false, limit: 10 },
      { where: eq('account_id', 'usr_a'), postfilter: true, limit: 5 },
    ];
    // Two searches of each shape, all at once.
    const searches = shapes.flatMap((shape) => [query(), query()].map((vector) => ({ shape, vector })));
    const batched = await Promise.all(searches.map(({ shape, vector }) => batcher.search(vector, shape)));
    expect(batcher.counts).toEqual({ queries: shapes.length, searches: searches.length });
    for (const [index, { shape, vector }] of searches.entries()) {
      expect(answer(batched[index] ?? [])).toEqual(answer(await alone(vector, shape)));
    }
    const ids = (index: number) => new Set((batched[index] ?? []).map((row) => Number(String(row['memory_id']).slice(1))));
    for (const id of [...ids(0), ...ids(1)]) expect(id % 4 === 0).toBe(false);
    for (const id of [...ids(2), ...ids(3)]) expect(id % 4 === 0).toBe(true);
    for (const id of [...ids(4), ...ids(5)]) expect(id % 4 !== 0 && id % 3 === 0).toBe(true);
    expect(batched[6]?.length).toBeLessThanOrEqual(5);
  });

  it('sends a search that comes while a query of its kind runs with the others that wait, once it ends', async () => {
    const batcher = new VectorSearchBatcher(table);
    const shape = { where: eq('account_id', 'usr_a'), postfilter: true, limit: 10 };
    const first = batcher.search(query(), shape);
    await nextTick(); // the first query is now running
    const later = [query(), query(), query()];
    const answers = await Promise.all([first, ...later.map((vector) => batcher.search(vector, shape))]);
    expect(batcher.counts).toEqual({ queries: 2, searches: 4 });
    for (const [index, vector] of later.entries()) expect(answer(answers[index + 1] ?? [])).toEqual(answer(await alone(vector, shape)));
  });

  it('splits a crowd into queries of a bounded number of vectors', async () => {
    const batcher = new VectorSearchBatcher(table);
    const shape = { where: eq('account_id', 'usr_a'), postfilter: true, limit: 3 };
    const queries = Array.from({ length: 10 }, query);
    const answers = await Promise.all(queries.map((vector) => batcher.search(vector, shape)));
    expect(batcher.counts).toEqual({ queries: 2, searches: 10 });
    for (const [index, vector] of queries.entries()) expect(answer(answers[index] ?? [])).toEqual(answer(await alone(vector, shape)));
  });

  it('fails every search of a failed query, and the next search runs afresh', async () => {
    const batcher = new VectorSearchBatcher(table);
    const broken = { where: 'no_such_column = 1', postfilter: false, limit: 3 };
    const results = await Promise.allSettled([batcher.search(query(), broken), batcher.search(query(), broken)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await batcher.search(query(), { ...broken, where: eq('account_id', 'usr_a') })).toHaveLength(3);
  });
});

describe('the store batches concurrent vector searches', () => {
  let storeDir: string;
  let storage: Storage;

  beforeAll(async () => {
    storeDir = mkdtempSync(join(tmpdir(), 'mem-vector-batch-store-'));
    storage = await openLanceStore({ uri: storeDir, vectorSpace: { modelId: 'test/model', dimension: DIM } });
    const vector = vectors(3);
    for (const [account, count] of [['usr_a', 40], ['usr_b', 6]] as const) {
      const store = storage.memories(account);
      for (let i = 0; i < count; i++) {
        const id = newId('memory');
        await store.insert(
          { id, title: 't', content: `c ${i}`, description: '', context: '', author: '', tags: i % 2 ? ['red'] : [], metadata: {}, spaceId: '', createdAt: i, updatedAt: null, contentHash: `h${i}`, turbo: false },
          [{ seq: 0, text: `c ${i}`, vector: vector() }],
        );
      }
    }
  });

  afterAll(async () => {
    await storage.close();
    rmSync(storeDir, { recursive: true, force: true });
  });

  it('gives concurrent searches the memories and similarities they get one at a time, for every filter', async () => {
    // usr_b holds fewer passages than the depth: its account-only search falls back to the filtered one.
    const searches = [
      ['usr_a', {}],
      ['usr_a', {}],
      ['usr_a', { tags: ['red'] }],
      ['usr_b', {}],
      ['usr_b', {}],
      ['usr_a', { tags: ['red'] }],
    ] as const;
    const run = ([account, filter]: (typeof searches)[number], vector: Float32Array) => storage.memories(account).vectorSearch(vector, filter, 10);
    const queries = searches.map(() => query());
    const together = await Promise.all(searches.map((search, index) => run(search, queries[index] as Float32Array)));
    for (const [index, search] of searches.entries()) {
      const one = await run(search, queries[index] as Float32Array);
      expect(together[index]).toEqual(one);
      expect(one.length).toBe(search[0] === 'usr_b' ? 6 : 10);
    }
  });
});
