import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import type { Storage } from '../../src/core/ports.js';
import type { MemoryRecord } from '../../src/core/types.js';
import type { MemoryView, SortKey } from '../../src/core/query/fields.js';
import { parseFilter } from '../../src/core/query/filter.js';
import { Zone } from '../../src/core/query/time.js';
import { openLanceStore } from '../../src/store/lancedb/lancedb-store.js';
import * as lancedb from '@lancedb/lancedb';
import { Schema } from 'apache-arrow';
import { Field, List, Utf8 } from 'apache-arrow';
import { entityFromDocuments, UNKNOWN_TALLY } from '../../src/core/knowledge/entity-tally.js';
import { entitiesSchema, memoriesSchema, metaSchema, SCHEMA_VERSION } from '../../src/store/lancedb/schema.js';
import { VECTOR_PROBES_MIN, VECTOR_PROBES_SHARE, vectorIndexPartitions, vectorIndexStats, vectorProbes } from '../../src/store/lancedb/vector-index.js';

const DIM = 4;
let dir: string;
let storage: Storage;

function memory(overrides: Partial<MemoryRecord> = {}): MemoryRecord {
  return {
    id: newId('memory'),
    title: 't',
    content: 'c',
    description: '',
    context: '',
    author: '',
    tags: [],
    metadata: {},
    spaceId: '',
    createdAt: Date.now(),
    updatedAt: null,
    contentHash: 'h',
    turbo: false,
    ...overrides,
  };
}

const vec = (...values: number[]) => {
  const v = new Float32Array(values);
  const norm = Math.hypot(...values);
  return v.map((x) => x / norm);
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-store-'));
  storage = await openLanceStore({ uri: dir, vectorSpace: { modelId: 'test/model', dimension: DIM } });
});

afterAll(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('LanceDB memory store', () => {
  it('round-trips every field, including unicode, nested metadata and quotes', async () => {
    const store = storage.memories('usr_a');
    const record = memory({
      title: "Sarah's notes 🧠",
      content: 'line one\nline two',
      description: 'desc',
      tags: ['work', "o'brien"],
      metadata: { nested: { list: [1, 'two', null] }, flag: true },
      spaceId: 'work',
      updatedAt: 1234,
    });
    await store.insert(record, [{ seq: 0, text: 'x', vector: vec(1, 0, 0, 0) }]);
    expect(await store.get(record.id)).toEqual(record);
  });

  it('a sorted page reads its fields for the page only and is the page of the whole sorted selection', async () => {
    const store = storage.memories('usr_sorted');
    const other = storage.memories('usr_sorted_other');
    const base = Date.UTC(2026, 0, 1);
    // Ties on createdAt and on title, a missing updatedAt, and another account's rows in between.
    const records = Array.from({ length: 23 }, (_, i) =>
      memory({
        title: `title ${i % 4}`,
        content: `content ${i} ${'x'.repeat(i)}`,
        tags: i % 2 === 0 ? ['even'] : ['odd'],
        metadata: { i },
        createdAt: base + (i % 5) * 1000,
        updatedAt: i % 3 === 0 ? null : base + i,
      }),
    );
    for (const record of records) await store.insert(record, []);
    for (let i = 0; i < 5; i++) await other.insert(memory({ title: 'title 0', createdAt: base + i * 1000 }), []);
    const fields = ['id', 'title', 'content', 'tags', 'metadata', 'createdAt', 'updatedAt'] as const;
    const orders: SortKey[][] = [
      [{ field: { kind: 'date', name: 'createdAt' }, direction: -1 }, { field: { kind: 'text', name: 'id' }, direction: -1 }],
      [{ field: { kind: 'text', name: 'title' }, direction: 1 }, { field: { kind: 'text', name: 'id' }, direction: 1 }],
      [{ field: { kind: 'date', name: 'updatedAt' }, direction: 1 }, { field: { kind: 'text', name: 'id' }, direction: -1 }],
    ];
    for (const orderBy of orders) {
      for (const where of [null, parseFilter({ tags: 'even' }, { zone: Zone.of('UTC') })]) {
        const everything = await store.select({ where, fields: [...fields], orderBy });
        const pages: MemoryView[] = [];
        for (let offset = 0; offset < everything.rows.length + 5; offset += 5) {
          const page = await store.select({ where, fields: [...fields], orderBy, page: { limit: 5, offset } });
          expect(page.total).toBe(everything.rows.length);
          pages.push(...page.rows);
        }
        expect(pages).toEqual(everything.rows);
        // Fields other than the sort keys, and fewer: the same ids in the same order, only those fields.
        const narrow = await store.select({ where, fields: ['id', 'content'], orderBy, page: { limit: 7, offset: 3 } });
        expect(narrow.rows).toEqual(everything.rows.slice(3, 10).map((row) => ({ id: row.id, content: row.content })));
      }
    }
  });

  it('a listed page is the page of every match, newest first (ties by id), whole records, other accounts never', async () => {
    const store = storage.memories('usr_listed');
    const other = storage.memories('usr_listed_other');
    const base = Date.UTC(2026, 1, 1);
    const records = Array.from({ length: 17 }, (_, i) =>
      memory({ content: `listed ${i}`, tags: i % 3 === 0 ? ['third'] : [], metadata: { i }, createdAt: base + (i % 4) * 1000 }),
    );
    for (const record of records) await store.insert(record, []);
    for (let i = 0; i < 4; i++) await other.insert(memory({ createdAt: base + i * 1000 + 500 }), []);
    const newestFirst = (a: MemoryRecord, b: MemoryRecord) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    for (const filter of [{}, { tags: ['third'] }]) {
      const expected = records.filter((record) => !filter.tags || record.tags.includes('third')).sort(newestFirst);
      const pages: MemoryRecord[] = [];
      for (let offset = 0; offset < expected.length + 4; offset += 4) {
        const page = await store.list(filter, { limit: 4, offset });
        expect(page.total).toBe(expected.length);
        pages.push(...page.items);
      }
      expect(pages).toEqual(expected);
    }
  });

  it("finds an account's nearest passages when another account's lie nearer, and the nearest of all when they are its own", async () => {
    const near = storage.memories('usr_near');
    const far = storage.memories('usr_far');
    const query = vec(1, 0.2, 0, 0);
    // usr_near's passages all lie nearer the query than any of usr_far's.
    const nearIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const record = memory();
      nearIds.push(record.id);
      await near.insert(record, [{ seq: 0, text: `near ${i}`, vector: vec(1, 0.2 + i * 0.05, 0, 0) }]);
    }
    const farIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const record = memory();
      farIds.push(record.id);
      await far.insert(record, [{ seq: 0, text: `far ${i}`, vector: vec(0.2, 1 + i, 0.5, 0) }]);
    }
    // The nearest of all are usr_near's: the search keeps its k nearest, in order.
    expect((await near.vectorSearch(query, {}, 3)).map((hit) => hit.memoryId)).toEqual(nearIds.slice(0, 3));
    // usr_far's nearest are behind usr_near's: the search still finds them, in order.
    expect((await far.vectorSearch(query, {}, 2)).map((hit) => hit.memoryId)).toEqual(farIds.slice(0, 2));
    // An account with fewer passages than asked for gets them all.
    expect((await far.vectorSearch(query, {}, 5)).map((hit) => hit.memoryId)).toEqual(farIds);
  });

  it('scopes every read and write to the account', async () => {
    const a = storage.memories('usr_scope_a');
    const b = storage.memories('usr_scope_b');
    const record = memory({ content: 'private to a', tags: ['x'] });
    await a.insert(record, [{ seq: 0, text: 'private', vector: vec(0, 1, 0, 0) }]);
    expect(await b.get(record.id)).toBeNull();
    expect(await b.getMany([record.id])).toEqual([]);
    expect((await b.list({}, { limit: 10, offset: 0 })).total).toBe(0);
    expect(await b.vectorSearch(vec(0, 1, 0, 0), {}, 10)).toEqual([]);
    expect(await b.keywordSearch('private', {}, 10)).toEqual([]);
    expect(await b.delete([record.id])).toEqual([]);
    expect(await a.get(record.id)).not.toBeNull();
    expect((await a.keywordSearch('private', {}, 10)).map((hit) => hit.memoryId)).toEqual([record.id]);
  });

  it('filters vector search inside the store and ranks by cosine similarity', async () => {
    const store = storage.memories('usr_vec');
    const near = memory({ tags: ['keep'], spaceId: 's', createdAt: 1000 });
    const far = memory({ tags: ['keep'], spaceId: 's', createdAt: 2000 });
    const filtered = memory({ tags: ['drop'], spaceId: 's', createdAt: 3000 });
    await store.insert(near, [{ seq: 0, text: 'a', vector: vec(1, 0.1, 0, 0) }]);
    await store.insert(far, [{ seq: 0, text: 'b', vector: vec(0, 1, 1, 0) }]);
    await store.insert(filtered, [{ seq: 0, text: 'c', vector: vec(1, 0, 0, 0) }]);
    const hits = await store.vectorSearch(vec(1, 0, 0, 0), { tags: ['keep'] }, 1);
    expect(hits).toHaveLength(1);
    expect(hits[0]?.memoryId).toBe(near.id);
    expect(hits[0]?.similarity).toBeCloseTo(0.995, 2);
    expect((await store.vectorSearch(vec(1, 0, 0, 0), { after: 1500, before: 2500 }, 10)).map((h) => h.memoryId)).toEqual([far.id]);
    expect((await store.vectorSearch(vec(1, 0, 0, 0), { spaceId: 'other' }, 10))).toEqual([]);
  });

  it('replace updates filter columns of vectors and swaps vectors when given', async () => {
    const store = storage.memories('usr_replace');
    const record = memory({ tags: ['old'] });
    await store.insert(record, [{ seq: 0, text: 'a', vector: vec(1, 0, 0, 0) }]);
    await store.replace({ ...record, tags: ['new'] });
    expect(await store.vectorSearch(vec(1, 0, 0, 0), { tags: ['old'] }, 5)).toEqual([]);
    expect(await store.vectorSearch(vec(1, 0, 0, 0), { tags: ['new'] }, 5)).toHaveLength(1);
    await store.replace({ ...record, tags: ['new'] }, [
      { seq: 0, text: 'b', vector: vec(0, 0, 1, 0) },
      { seq: 1, text: 'c', vector: vec(0, 0, 0, 1) },
    ]);
    const hits = await store.vectorSearch(vec(0, 0, 0, 1), {}, 5);
    expect(hits.map((hit) => hit.seq).sort()).toEqual([0, 1]);
    expect(hits[0]?.seq).toBe(1);
  });

  it('delete removes memories and their vectors; idsWithoutVectors finds the gaps', async () => {
    const store = storage.memories('usr_delete');
    const kept = memory();
    const gone = memory();
    const bare = memory();
    await store.insert(kept, [{ seq: 0, text: 'k', vector: vec(1, 1, 0, 0) }]);
    await store.insert(gone, [{ seq: 0, text: 'g', vector: vec(1, 1, 0, 0) }]);
    await store.insert(bare, []);
    expect(await store.delete([gone.id, 'mem_unknown'])).toEqual([gone.id]);
    expect((await store.vectorSearch(vec(1, 1, 0, 0), {}, 10)).map((hit) => hit.memoryId)).toEqual([kept.id]);
    expect(await store.idsWithoutVectors(10)).toEqual([bare.id]);
    expect(await store.count()).toBe(2);
  });

  it('concurrent inserts all land (group commit)', async () => {
    const store = storage.memories('usr_concurrent');
    const records = Array.from({ length: 40 }, (_, i) => memory({ content: `n${i}` }));
    await Promise.all(records.map((record) => store.insert(record, [{ seq: 0, text: 'x', vector: vec(1, 0, 1, 0) }])));
    expect(await store.count()).toBe(40);
    expect((await store.vectorSearch(vec(1, 0, 1, 0), {}, 100)).length).toBe(40);
  });

  it('finds memories by a metadata value, many values in one read, quotes escaped, other accounts never', async () => {
    const store = storage.memories('usr_meta');
    const paths = ["/notes/don't.md", '/notes/100%_done.md', '/notes/plain.md', '/notes/a"quote.md', '/notes/a\\slash.md'];
    const saved = paths.map((path) => memory({ metadata: { sourcePath: path } }));
    for (const record of saved) await store.insert(record, [{ seq: 0, text: 'x', vector: vec(1, 0, 0, 1) }]);
    // The value inside another field's text is not a match; another account's memory is not seen.
    await store.insert(memory({ metadata: { note: '"sourcePath":"/notes/plain.md"' } }), []);
    await storage.memories('usr_meta_other').insert(memory({ metadata: { sourcePath: '/notes/other.md' } }), []);
    const found = await store.findManyByMetadata('sourcePath', [...paths, '/notes/missing.md', '/notes/other.md', "x' OR 1=1 --"]);
    expect([...found.keys()].sort()).toEqual([...paths].sort());
    paths.forEach((path, i) => expect(found.get(path)?.id).toBe(saved[i]?.id));
    expect(await store.findManyByMetadata('sourcePath', [])).toEqual(new Map());
    // Values of one folder (the lookup asks for their common prefix first), one ending inside an escape.
    const folder = await store.findManyByMetadata('sourcePath', ['/notes/a"quote.md', '/notes/a\\slash.md', '/notes/a-missing.md']);
    expect([...folder.keys()].sort()).toEqual(['/notes/a"quote.md', '/notes/a\\slash.md']);
    expect(await store.findManyByMetadata('sourcePath', ['/elsewhere/plain.md', '/elsewhere/don.md'])).toEqual(new Map());
    expect((await store.findByMetadata('sourcePath', "/notes/don't.md"))?.id).toBe(saved[0]?.id);
    expect(await store.findByMetadata('sourcePath', '/notes/other.md')).toBeNull();
  });

  it('maintenance compacts and keeps every row readable', async () => {
    const before = await storage.totalMemories();
    const report = await storage.maintain();
    expect(report.tables).toBeGreaterThan(0);
    expect(report.vectorIndex).toMatch(/none|ivf/);
    expect(await storage.totalMemories()).toBe(before);
  });

  it('maintenance running alongside writes never fails a write', async () => {
    const store = storage.memories('usr_busy');
    const records = Array.from({ length: 60 }, (_, i) => memory({ content: `busy ${i}` }));
    const writes = (async () => {
      for (const [i, record] of records.entries()) {
        await store.insert(record, [{ seq: 0, text: `busy ${i}`, vector: vec(1, i + 1, 0, 1) }]);
        if (i % 5 === 4) await store.replace({ ...record, tags: ['edited'] });
        if (i % 7 === 6) await store.delete([records[i - 3]?.id ?? '']);
      }
    })();
    const passes = (async () => {
      for (let i = 0; i < 5; i++) await storage.maintain();
    })();
    await Promise.all([writes, passes]);
    const deleted = records.filter((_, i) => i % 7 === 6).map((_, k) => records[k * 7 + 3]?.id);
    expect(await store.count()).toBe(records.length - deleted.length);
    expect((await store.list({ tags: ['edited'] }, { limit: 100, offset: 0 })).total).toBeGreaterThan(0);
  });

  it('background maintenance rests ten times as long as its last pass took before the next one', async () => {
    const pacedDir = mkdtempSync(join(tmpdir(), 'mem-store-paced-'));
    // Saves count towards the full pass only when the search tables have no compaction of their own.
    const paced = await openLanceStore({
      uri: pacedDir,
      vectorSpace: { modelId: 'test/model', dimension: DIM },
      maintainEveryWrites: 1,
      compactSearchTablesEvery: 0,
    });
    const passes: { startedAt: number; report: { durationMs: number } }[] = [];
    const maintain = paced.maintain.bind(paced);
    paced.maintain = async () => {
      const startedAt = Date.now();
      const report = await maintain();
      passes.push({ startedAt, report });
      return report;
    };
    try {
      const store = paced.memories('usr_paced');
      // The first write starts a pass at once (none ran yet); writes during a pass or its rest count, and the
      // second pass starts when the rest ends. On a loaded machine a first pass of 2 s means 20 s of rest: the
      // loop is bounded by time, not by a count.
      let written = 0;
      const deadline = Date.now() + 80_000;
      while (passes.length < 2 && Date.now() < deadline) {
        await store.insert(memory({ content: `paced ${written}` }), [{ seq: 0, text: `paced ${written}`, vector: vec(1, written + 1, 0, 1) }]);
        written += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(passes.length).toBeGreaterThanOrEqual(2);
      const [first, second] = passes as [(typeof passes)[0], (typeof passes)[0]];
      expect(first.report.durationMs).toBeGreaterThan(0);
      // Measured from when the first pass started, not from when its promise was seen to resolve (on a loaded
      // host that can be late by more than the rest's rounding): the pass took durationMs, then rested ten times
      // that. The report's duration is read a moment after the store's own (at most a millisecond, times 11).
      expect(second.startedAt - first.startedAt).toBeGreaterThanOrEqual(11 * first.report.durationMs - 15);
      expect(await store.count()).toBe(written);
    } finally {
      await paced.close();
      rmSync(pacedDir, { recursive: true, force: true });
    }
  }, 100_000);

  it('scalar indexes, once a table is large enough, give the same answers for every filter', async () => {
    const indexDir = mkdtempSync(join(tmpdir(), 'mem-store-index-'));
    const indexed = await openLanceStore({ uri: indexDir, vectorSpace: { modelId: 'test/model', dimension: DIM }, scalarIndexMinRows: 20 });
    try {
      const store = indexed.memories('usr_idx');
      const other = indexed.memories('usr_other');
      const day = 86_400_000;
      const records = Array.from({ length: 30 }, (_, i) =>
        memory({ content: `row ${i}`, tags: i % 3 === 0 ? ['red'] : ['blue', "o'neil"], spaceId: i % 2 ? 'work' : '', createdAt: Date.UTC(2026, 0, 1) + i * day }),
      );
      for (const [i, record] of records.entries()) await store.insert(record, [{ seq: 0, text: `row ${i}`, vector: vec(1, i, 0, 1) }]);
      await other.insert(memory({ content: 'someone else', tags: ['red'] }), [{ seq: 0, text: 'x', vector: vec(1, 1, 0, 1) }]);
      const filters = [{}, { tags: ['red'] }, { tags: ["o'neil"] }, { spaceId: 'work' }, { after: Date.UTC(2026, 0, 10), before: Date.UTC(2026, 0, 20) }, { spaceId: '', tags: ['blue'] }];
      const answers = async () => ({
        lists: await Promise.all(filters.map(async (filter) => (await store.list(filter, { limit: 100, offset: 0 })).items.map((m) => m.id).sort())),
        searches: await Promise.all(filters.map(async (filter) => (await store.vectorSearch(vec(1, 5, 0, 1), filter, 100)).map((hit) => hit.memoryId).sort())),
        gets: await Promise.all(records.slice(0, 5).map(async (record) => (await store.get(record.id))?.id)),
      });
      const before = await answers();
      expect((await indexed.maintain()).scalarIndexes).toBe(10);
      expect(await answers()).toEqual(before);
      // Rows written after the indexes are found too (searched flat until the next pass folds them in).
      const late = memory({ content: 'late', tags: ['red'], spaceId: 'work' });
      await store.insert(late, [{ seq: 0, text: 'late', vector: vec(1, 2, 0, 1) }]);
      expect((await store.list({ tags: ['red'], spaceId: 'work' }, { limit: 100, offset: 0 })).items.map((m) => m.id)).toContain(late.id);
      expect((await store.get(late.id))?.id).toBe(late.id);
      expect((await indexed.maintain()).scalarIndexes).toBe(10);
      expect((await store.vectorSearch(vec(1, 2, 0, 1), { tags: ['red'] }, 100)).map((hit) => hit.memoryId)).toContain(late.id);
      expect((await other.list({}, { limit: 100, offset: 0 })).total).toBe(1);
    } finally {
      await indexed.close();
      rmSync(indexDir, { recursive: true, force: true });
    }
  });

  it('maintenance keeps the vector index in a few parts however many compactions add to it, and every passage stays its own nearest', async () => {
    const indexDir = mkdtempSync(join(tmpdir(), 'mem-store-vector-index-'));
    const maxParts = 3;
    const options = { uri: indexDir, vectorSpace: { modelId: 'test/model', dimension: DIM }, vectorIndexMinRows: 300, vectorIndexMaxParts: maxParts } as const;
    const indexed = await openLanceStore(options);
    const parts = async () => {
      const table = await (await lancedb.connect(indexDir)).openTable('chunks__test_model__4');
      return (await vectorIndexStats(table))?.parts ?? 0;
    };
    try {
      const store = indexed.memories('usr_vectors');
      const vectorOf = (i: number) => vec(Math.cos(i), Math.sin(i), Math.cos(i / 7), 1 + (i % 5));
      const records = Array.from({ length: 300 }, (_, i) => memory({ content: `row ${i}`, tags: i % 10 === 0 ? ['tenth'] : [] }));
      await Promise.all(records.map((record, i) => store.insert(record, [{ seq: 0, text: `row ${i}`, vector: vectorOf(i) }])));
      expect((await indexed.maintain()).vectorIndex).toBe('ivf_flat');
      expect(await parts()).toBe(1);
      const nearest = async (i: number) => (await store.vectorSearch(vectorOf(i), {}, 1)).map((hit) => hit.memoryId);
      // Each compaction that finds new passages may add a part; the pass after it trains the index again once
      // there are more than maxParts, and never lets a pass end with more.
      const reports: string[] = [];
      for (let round = 0; round < 8; round++) {
        for (let j = 0; j < 3; j++) {
          const i = records.length;
          const record = memory({ content: `row ${i}` });
          records.push(record);
          await store.insert(record, [{ seq: 0, text: `row ${i}`, vector: vectorOf(i) }]);
        }
        await indexed.compactSearchTables();
        // Between passes the index may hold more parts than the cap, and searches still find the newest rows.
        expect(await nearest(records.length - 1)).toEqual([records[records.length - 1]?.id]);
        // Status reports the parts as they are after the compaction and after the pass.
        expect(indexed.searchTablesLoad?.().vectorIndexParts).toBe(await parts());
        reports.push((await indexed.maintain({ searchTables: false })).vectorIndex);
        expect(await parts()).toBeLessThanOrEqual(maxParts);
        expect(indexed.searchTablesLoad?.().vectorIndexParts).toBe(await parts());
      }
      expect(reports.filter((report) => report.startsWith('ivf_flat (trained again:')).length).toBeGreaterThan(0);
      // Every passage, old and new, is still its own nearest.
      for (const i of [0, 150, 299, 300, 311, records.length - 1]) expect(await nearest(i)).toEqual([records[i]?.id]);
      // A filtered search (filtered first, so it may probe every partition) finds its exact nearest too.
      expect((await store.vectorSearch(vectorOf(150), { tags: ['tenth'] }, 1)).map((hit) => hit.memoryId)).toEqual([records[150]?.id]);
      expect(await store.count()).toBe(records.length);
    } finally {
      await indexed.close();
      rmSync(indexDir, { recursive: true, force: true });
    }
  });

  it('a vector query probes a share of the index partitions (every one when filtered first), never fewer than LanceDB would', () => {
    expect(vectorIndexPartitions(100_000)).toBe(316);
    expect(vectorProbes(17, false)).toEqual({ minimum: 17, maximum: 17 });
    expect(vectorProbes(30, false)).toEqual({ minimum: VECTOR_PROBES_MIN, maximum: VECTOR_PROBES_MIN });
    const minimum = Math.ceil(316 * VECTOR_PROBES_SHARE);
    expect(vectorProbes(316, false)).toEqual({ minimum, maximum: minimum });
    expect(vectorProbes(316, true)).toEqual({ minimum, maximum: 316 });
  });

  it('the first maintenance pass after a start deletes passages left without their memory by a crash', async () => {
    const crashDir = mkdtempSync(join(tmpdir(), 'mem-store-orphans-'));
    const first = await openLanceStore({ uri: crashDir, vectorSpace: { modelId: 'test/model', dimension: DIM } });
    const kept = memory({ content: 'kept' });
    const lost = memory({ content: 'lost' });
    const twin = memory({ id: lost.id, content: 'same id, other account' });
    await first.memories('usr_a').insert(kept, [{ seq: 0, text: 'kept', vector: vec(1, 0, 0, 0) }]);
    await first.memories('usr_a').insert(lost, [
      { seq: 0, text: 'lost one', vector: vec(0, 1, 0, 0) },
      { seq: 1, text: 'lost two', vector: vec(0, 1, 1, 0) },
    ]);
    await first.memories('usr_b').insert(twin, [{ seq: 0, text: 'twin', vector: vec(0, 1, 0, 0) }]);
    await first.close();
    // A crash between the two commits of a save: the passages are there, the memory row is not.
    const db = await lancedb.connect(crashDir);
    await (await db.openTable('memories')).delete(`account_id = 'usr_a' AND id = '${lost.id}'`);
    db.close();

    const reopened = await openLanceStore({ uri: crashDir, vectorSpace: { modelId: 'test/model', dimension: DIM } });
    try {
      const store = reopened.memories('usr_a');
      expect((await store.vectorSearch(vec(0, 1, 0, 0), {}, 10)).map((hit) => hit.memoryId)).toContain(lost.id);
      expect((await reopened.maintain()).orphanPassages).toBe(2);
      expect((await store.vectorSearch(vec(0, 1, 0, 0), {}, 10)).map((hit) => hit.memoryId)).toEqual([kept.id]);
      // The same id in another account is a different memory: its passage stays.
      expect((await reopened.memories('usr_b').vectorSearch(vec(0, 1, 0, 0), {}, 10)).map((hit) => hit.memoryId)).toEqual([twin.id]);
      expect(await store.idsWithoutVectors(10)).toEqual([]);
      expect((await reopened.maintain()).orphanPassages).toBe(0);
    } finally {
      await reopened.close();
      rmSync(crashDir, { recursive: true, force: true });
    }
  });

  it('sums the content size of an account', async () => {
    const sizeDir = mkdtempSync(join(tmpdir(), 'mem-store-size-'));
    const sized = await openLanceStore({ uri: sizeDir, vectorSpace: { modelId: 'test/model', dimension: DIM } });
    try {
      expect(await sized.memories('usr_a').contentBytes()).toBe(0);
      await sized.memories('usr_a').insert(memory({ content: 'abc' }), [{ seq: 0, text: 'abc', vector: vec(1, 0, 0, 0) }]);
      await sized.memories('usr_a').insert(memory({ content: 'héllo' }), [{ seq: 0, text: 'h', vector: vec(1, 0, 0, 0) }]);
      await sized.memories('usr_b').insert(memory({ content: 'other account' }), [{ seq: 0, text: 'o', vector: vec(1, 0, 0, 0) }]);
      // UTF-8 bytes of 'abc' and 'héllo'; the other account's memory is not counted.
      expect(await sized.memories('usr_a').contentBytes()).toBe(9);
    } finally {
      await sized.close();
      rmSync(sizeDir, { recursive: true, force: true });
    }
  });

  it('reopening keeps data and refuses a newer schema', async () => {
    const again = await openLanceStore({ uri: dir, vectorSpace: { modelId: 'test/model', dimension: DIM } });
    expect(await again.totalMemories()).toBe(await storage.totalMemories());
    await again.close();
  });

  it.each([
    { version: 1, missing: ['context', 'author'] },
    { version: 2, missing: ['author'] },
  ])('migrates a schema $version directory: memories gain empty $missing, and saving with them works', async ({ version, missing }) => {
    const oldDir = mkdtempSync(join(tmpdir(), `mem-store-v${version}-`));
    const id = newId('memory');
    // The directory as mem wrote it before memories had these columns.
    const db = await lancedb.connect(oldDir);
    const meta = await db.createEmptyTable('meta', metaSchema);
    await meta.add([{ key: 'schema_version', value: String(version) }]);
    const old = new Schema(memoriesSchema.fields.filter((field) => !missing.includes(field.name)));
    const table = await db.createEmptyTable('memories', old);
    await table.add([
      {
        id, account_id: 'usr_a', title: 'old', content: 'an old memory', description: '', tags: ['x'], metadata: '{}', space_id: '',
        created_at: 1000, updated_at: null, content_hash: 'h', turbo: false, size_bytes: 13,
        ...(version === 2 ? { context: 'kept' } : {}),
      },
    ]);
    db.close();
    try {
      for (let open = 0; open < 2; open++) {
        const migrated = await openLanceStore({ uri: oldDir, vectorSpace: { modelId: 'test/model', dimension: DIM } });
        try {
          const store = migrated.memories('usr_a');
          expect(await store.get(id)).toMatchObject({ id, content: 'an old memory', tags: ['x'], context: version === 2 ? 'kept' : '', author: '' });
          if (open === 0) {
            const reply = memory({ content: 'Three times a week.', context: 'How often do you go?', author: 'Melanie' });
            await store.insert(reply, [{ seq: 0, text: 'r', vector: vec(1, 0, 0, 0) }]);
          }
          const items = (await store.list({}, { limit: 10, offset: 0 })).items;
          expect(items.map((item) => item.context).sort()).toEqual([version === 2 ? 'kept' : '', 'How often do you go?'].sort());
          expect(items.map((item) => item.author).sort()).toEqual(['', 'Melanie']);
        } finally {
          await migrated.close();
        }
      }
      const check = await lancedb.connect(oldDir);
      const stored = await check.openTable('memories');
      // The columns in the order the current schema declares them.
      expect((await stored.schema()).fields.map((field) => field.name)).toEqual(memoriesSchema.fields.map((field) => field.name));
      stored.close();
      const versionRows = await (await check.openTable('meta')).query().where("key = 'schema_version'").toArray();
      expect(versionRows.map((row) => row.value)).toEqual([String(SCHEMA_VERSION)]);
      check.close();
    } finally {
      rmSync(oldDir, { recursive: true, force: true });
    }
  });

  it('migrates a schema 3 directory: each entity\'s contributions become rows of their own, its row their tally', async () => {
    const oldDir = mkdtempSync(join(tmpdir(), 'mem-store-v3-'));
    const documents = {
      mem_a: { mentions: 2, seenAt: 1000, names: ['Maya Lopez', 'Maya'], properties: { role: 'lead' } },
      mem_b: { mentions: 1, seenAt: 2000, names: ['Maya'], properties: { role: 'director' } },
    };
    // The entities table as schema 3 wrote it: the contributions as one JSON column, no tally.
    const fields = entitiesSchema.fields.filter((field) => field.name !== 'tally');
    const at = fields.findIndex((field) => field.name === 'memory_ids') + 1;
    const old = new Schema([...fields.slice(0, at), new Field('documents', new Utf8(), false), ...fields.slice(at)]);
    const row = (id: string, account: string, json: string) => ({
      id, account_id: account, name: 'Maya Lopez', sort_name: 'maya lopez', type: 'person', aliases: ['Maya'], properties: '{"role":"director"}',
      mentions: 3, first_seen: 1000, last_seen: 2000, memory_ids: ['mem_a', 'mem_b'], documents: json, match_keys: ['n:maya lopez'], search_text: 'maya lopez\nmaya',
    });
    const db = await lancedb.connect(oldDir);
    await (await db.createEmptyTable('meta', metaSchema)).add([{ key: 'schema_version', value: '3' }]);
    await db.createEmptyTable('memories', memoriesSchema);
    await (await db.createEmptyTable('entities', old)).add([row('ent_maya', 'usr_a', JSON.stringify(documents)), row('ent_damaged', 'usr_b', '{not json')]);
    db.close();
    try {
      for (let open = 0; open < 2; open++) {
        const migrated = await openLanceStore({ uri: oldDir, vectorSpace: { modelId: 'test/model', dimension: DIM } });
        try {
          const knowledge = migrated.knowledge('usr_a');
          const [maya] = await knowledge.entitiesByIds(['ent_maya']);
          expect(maya).toMatchObject({ name: 'Maya Lopez', aliases: ['Maya'], mentions: 3, relatedDocuments: ['mem_a', 'mem_b'] });
          expect(maya?.tally).toEqual(entityFromDocuments({ id: 'ent_maya', type: 'person' }, documents)?.tally);
          expect(await knowledge.contributionsOf(['ent_maya'])).toEqual(new Map([['ent_maya', documents]]));
          expect(await knowledge.counts()).toMatchObject({ entities: 1, contributions: 2 });
          // A damaged column gives no contributions, and a tally that makes the next change derive it again.
          const [damaged] = await migrated.knowledge('usr_b').entitiesByIds(['ent_damaged']);
          expect(damaged?.tally).toBe(UNKNOWN_TALLY);
          expect(await migrated.knowledge('usr_b').contributionsOf(['ent_damaged'])).toEqual(new Map());
        } finally {
          await migrated.close();
        }
      }
      const check = await lancedb.connect(oldDir);
      const stored = await check.openTable('entities');
      expect((await stored.schema()).fields.map((field) => field.name)).toEqual(entitiesSchema.fields.map((field) => field.name));
      stored.close();
      check.close();
    } finally {
      rmSync(oldDir, { recursive: true, force: true });
    }
  });
});
