import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntitiesResponse, FactsResponse, ImportResponse, ListResponse, SearchResponse } from '../../src/api/contract.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

let a: TestApp;
let folder: string;

beforeAll(async () => {
  a = await createTestApp();
  folder = mkdtempSync(join(tmpdir(), 'mem-export-watch-'));
});

afterAll(async () => {
  await a.close();
  rmSync(folder, { recursive: true, force: true });
  await closeTestEmbedder();
});

async function save(t: TestApp, payload: Record<string, unknown>): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/v1/save', payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ documentId: string }>().documentId;
}

async function exportOf(t: TestApp, query = ''): Promise<string> {
  const response = await t.request({ method: 'GET', url: `/v1/export${query}` });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/);
  return response.body;
}

async function importInto(t: TestApp, body: string, query = '', headers: Record<string, string> = {}): Promise<ImportResponse> {
  const response = await t.request({
    method: 'POST',
    url: `/v1/import${query}`,
    payload: body,
    headers: { 'content-type': 'application/x-ndjson', ...headers },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<ImportResponse>();
}

type Line = Record<string, unknown> & { type: string };
const lines = (text: string): Line[] => text.trimEnd().split('\n').map((line) => JSON.parse(line) as Line);
type MemoryLine = Line & { vectors: { seq: number; text: string; vector: number[] }[] };

/** The export without its volatile field (README: header.exportedAt). */
const stable = (text: string) => text.replace(/"exportedAt":"[^"]+"/, '"exportedAt":"-"');

/** The time a memory id's ULID encodes. */
const ulidTime = (id: string) => [...id.slice(4, 14)].reduce((ms, char) => ms * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(char), 0);

/** Lets background work (watch scans, extraction queue) finish. */
async function settle(t: TestApp): Promise<void> {
  await t.deps.ingest.onIdle();
  await t.deps.watches.onIdle();
  await t.deps.knowledge.idle();
}

describe('createdAt on save and ingest (plain history keeps its time)', () => {
  it('a save dated in the past sorts, filters and gets an id of its date', async () => {
    const id = await save(a, { content: 'Old diary entry about the lighthouse trip', createdAt: '2019-05-01T10:00:00Z', tags: ['dated'] });
    const memory = (await a.request({ method: 'GET', url: `/v1/memory/${id}` })).json<{ data: { createdAt: string } }>().data;
    expect(memory.createdAt).toBe('2019-05-01T10:00:00.000Z');
    // ULID time part: the id sorts by the memory's own date.
    expect(id.slice(4, 14) < (await save(a, { content: 'written today', tags: ['dated'] })).slice(4, 14)).toBe(true);
    const before = (await a.request({ method: 'GET', url: '/v1/memories?tags=dated&before=2020-01-01' })).json<ListResponse>();
    expect(before.data.map((entry) => entry.id)).toEqual([id]);
    const all = (await a.request({ method: 'GET', url: '/v1/memories?tags=dated' })).json<ListResponse>();
    expect(all.data.at(-1)?.id).toBe(id);
    const histogram = await a.request({
      method: 'POST',
      url: '/v1/query',
      payload: { filters: { tags: { $in: ['dated'] } }, aggregate: { dateHistogram: { field: 'createdAt', interval: 'year' } } },
    });
    expect(JSON.stringify(histogram.json())).toContain('2019');
    await a.request({ method: 'POST', url: '/v1/memories/delete', payload: { ids: all.data.map((entry) => entry.id) } });
  });

  it('a date-only createdAt is midnight UTC; the future is refused', async () => {
    const id = await save(a, { content: 'Dated by day only', createdAt: '2021-03-04' });
    expect((await a.request({ method: 'GET', url: `/v1/memory/${id}` })).json<{ data: { createdAt: string } }>().data.createdAt).toBe('2021-03-04T00:00:00.000Z');
    const future = await a.request({ method: 'POST', url: '/v1/save', payload: { content: 'from the future', createdAt: '2999-01-01T00:00:00Z' } });
    expect(future.statusCode).toBe(400);
    expect(future.json()).toMatchObject({ error: 'VALIDATION_ERROR', message: expect.stringMatching(/future/) });
    const asyncFuture = await a.request({ method: 'POST', url: '/v1/save', payload: { content: 'later', async: true, createdAt: '2999-01-01' } });
    expect(asyncFuture.statusCode).toBe(400);
    const bad = await a.request({ method: 'POST', url: '/v1/save', payload: { content: 'x', createdAt: 'yesterday' } });
    expect(bad.statusCode).toBe(400);
    await a.request({ method: 'DELETE', url: `/v1/memory/${id}` });
  });

  it('ingest items carry createdAt; a future one is refused with its index', async () => {
    const response = await a.request({
      method: 'POST',
      url: '/v1/ingest',
      payload: { async: false, items: [{ content: 'Ingested note from 2018', createdAt: '2018-07-01T12:00:00Z' }, { content: 'Ingested now' }] },
    });
    expect(response.statusCode, response.body).toBe(200);
    const [first, second] = response.json<{ results: { documentId: string }[] }>().results;
    const dated = (await a.request({ method: 'GET', url: `/v1/memory/${first?.documentId}` })).json<{ data: { createdAt: string } }>().data;
    expect(dated.createdAt).toBe('2018-07-01T12:00:00.000Z');
    const refused = await a.request({
      method: 'POST',
      url: '/v1/ingest',
      payload: { async: false, items: [{ content: 'ok' }, { content: 'too late', createdAt: '2999-01-01' }] },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'VALIDATION_ERROR', invalidIndices: [1] });
    await a.request({ method: 'POST', url: '/v1/memories/delete', payload: { ids: [first?.documentId, second?.documentId] } });
  });
});

describe('export -> import into a fresh data dir -> export: a lossless round trip', () => {
  let b: TestApp;
  let first: string;
  let sarahFacts: FactsResponse;

  beforeAll(async () => {
    b = await createTestApp();
    await save(a, {
      content: 'Sarah Chen works at Acme Corp in Berlin. She met David Okafor from Globex to discuss the Q3 roadmap.',
      tags: ['work', 'acme'],
      metadata: { source: 'email', nested: { priority: 2, flags: ['a', 'b'] } },
      spaceId: 'work',
      createdAt: '2024-01-10T09:00:00Z',
    });
    await save(a, { content: 'Sarah Chen works at Globex now, as head of research.', tags: ['work'], spaceId: 'work', createdAt: '2025-02-01T09:00:00Z' });
    const garden = await save(a, { content: 'Tomatoes and basil grow well together in the garden.', tags: ['garden'], spaceId: 'home', description: 'planting', context: 'What grows well next to tomatoes?', author: 'Sam' });
    const updated = await a.request({ method: 'PATCH', url: `/v1/memory/${garden}`, payload: { tags: ['garden', 'summer'] } });
    expect(updated.statusCode).toBe(200);
    const turbo = await a.request({ method: 'POST', url: '/v1/turbo/save', payload: { content: 'Quick turbo note about the bike repair shop on Elm Street', tags: ['errand'] } });
    expect(turbo.statusCode, turbo.body).toBe(201);
    writeFileSync(join(folder, 'notes.md'), '# Reading list\n\nFinish the book about Roman aqueducts.\n');
    const watch = await a.request({ method: 'POST', url: '/v1/watches', payload: { path: folder, tags: ['watched'] } });
    expect(watch.statusCode, watch.body).toBe(201);
    await settle(a);
    sarahFacts = (await a.request({ method: 'GET', url: '/v1/facts?entity=Sarah%20Chen&includeSuperseded=true' })).json<FactsResponse>();
    first = await exportOf(a);
  });

  afterAll(async () => {
    await b.close();
  });

  it('the export has a header, every kind of record in id order and an end line with the counts', () => {
    const records = lines(first);
    expect(records[0]).toMatchObject({
      type: 'header',
      format: 'mem-export',
      version: 1,
      exportedAt: expect.any(String),
      embedding: { modelId: a.deps.embedder.modelId, dimension: a.deps.embedder.dimension },
      withVectors: false,
    });
    const end = records.at(-1) as { type: string; counts: Record<string, number> };
    const kinds = records.map((record) => record.type);
    expect(end.type).toBe('end');
    expect(end.counts).toEqual({
      memories: kinds.filter((kind) => kind === 'memory').length,
      entities: kinds.filter((kind) => kind === 'entity').length,
      facts: kinds.filter((kind) => kind === 'fact').length,
      edges: kinds.filter((kind) => kind === 'edge').length,
      spaces: 2,
      watches: 1,
    });
    expect(end.counts.memories).toBe(5);
    expect(end.counts.entities).toBeGreaterThan(3);
    expect(end.counts.facts).toBeGreaterThan(1);
    expect(end.counts.edges).toBeGreaterThan(0);
    // Kinds in the documented order, ids ascending within each.
    const order = ['header', 'memory', 'entity', 'fact', 'edge', 'space', 'watch', 'end'];
    expect(kinds).toEqual([...kinds].sort((x, y) => order.indexOf(x) - order.indexOf(y)));
    for (const kind of ['memory', 'entity', 'fact', 'edge']) {
      const ids = records.filter((record) => record.type === kind).map((record) => String(record.id));
      expect(ids).toEqual([...ids].sort());
    }
    const memory = records.find((record) => record.type === 'memory' && (record.tags as string[]).includes('acme'));
    expect(memory).toMatchObject({
      metadata: { source: 'email', nested: { priority: 2, flags: ['a', 'b'] } },
      spaceId: 'work',
      createdAt: '2024-01-10T09:00:00.000Z',
      updatedAt: null,
      turbo: false,
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      extraction: { status: 'completed', model: expect.any(String) },
    });
    expect(records.find((record) => record.type === 'memory' && record.turbo === true)).toMatchObject({ extraction: null });
    expect(records.find((record) => record.type === 'memory' && record.description === 'planting')).toMatchObject({ updatedAt: expect.any(String) });
    expect(records.filter((record) => record.type === 'space')).toEqual([
      { type: 'space', id: 'home', memories: 1 },
      { type: 'space', id: 'work', memories: 2 },
    ]);
    expect(records.find((record) => record.type === 'watch')).toMatchObject({ path: folder, tags: ['watched'], glob: expect.any(String) });
    const superseded = records.find((record) => record.type === 'fact' && record.validTo !== null);
    expect(superseded).toMatchObject({ supersededBy: expect.stringMatching(/^fact_/), memoryIds: [expect.stringMatching(/^mem_/)] });
    const sarah = records.find((record) => record.type === 'entity' && record.name === 'Sarah Chen');
    expect(sarah).toMatchObject({ entityType: 'person', memoryIds: expect.any(Array), contributions: expect.any(Object) });
  });

  it('two exports of the same data differ only in exportedAt', async () => {
    const again = await exportOf(a);
    expect(again.match(/"exportedAt"/g)).toHaveLength(1);
    expect(stable(again)).toBe(stable(first));
  });

  it('imports into a fresh data dir and exports byte-identically; a second import changes nothing', async () => {
    const report = await importInto(b, first);
    expect(report.errors).toEqual([]);
    expect(report).toMatchObject({ dryRun: false, failed: 0, updated: 0 });
    expect(report.byType.memory).toEqual({ created: 5, updated: 0, unchanged: 0, failed: 0 });
    expect(report.byType.watch).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 0 });
    expect(report.byType.space).toEqual({ created: 0, updated: 0, unchanged: 2, failed: 0 });
    await settle(b);
    const second = await exportOf(b);
    expect(stable(second)).toBe(stable(first));

    const again = await importInto(b, first);
    expect(again.errors).toEqual([]);
    expect(again).toMatchObject({ created: 0, updated: 0, failed: 0 });
    expect(again.unchanged).toBe(lines(first).length - 2);
    await settle(b);
    expect(stable(await exportOf(b))).toBe(stable(first));
  });

  it('the imported copy answers like the original: search, facts with validity, extraction status, watches', async () => {
    const query = { query: 'who did Sarah meet about the roadmap?', threshold: 0 };
    const [x, y] = await Promise.all([
      a.request({ method: 'POST', url: '/v1/search', payload: query }),
      b.request({ method: 'POST', url: '/v1/search', payload: query }),
    ]);
    // The same memories in the same order; the scores agree to 0.01: the keyword half's BM25 depends on
    // whether LanceDB's full-text index already holds a row or still searches it flat, which a fresh
    // import and a store that grew save by save need not share.
    const results = (response: { json: <T>() => T }) => response.json<SearchResponse>().results;
    expect(results(y).map((result) => result.id)).toEqual(results(x).map((result) => result.id));
    results(y).forEach((result, i) => expect(Math.abs(result.score - (results(x)[i]?.score ?? Number.NaN))).toBeLessThan(0.01));
    const facts = (await b.request({ method: 'GET', url: '/v1/facts?entity=Sarah%20Chen&includeSuperseded=true' })).json<FactsResponse>();
    expect(facts).toEqual(sarahFacts);
    expect(facts.facts.some((fact) => fact.validTo !== null && fact.supersededBy !== null)).toBe(true);
    const entities = (await b.request({ method: 'GET', url: '/v1/entities?search=sarah' })).json<EntitiesResponse>();
    expect(entities.entities.map((entity) => entity.name)).toContain('Sarah Chen');
    const memoryId = facts.facts[0]?.source.documentId;
    const status = await b.request({ method: 'GET', url: `/v1/extract/${memoryId}` });
    expect(status.json()).toMatchObject({ status: 'completed' });
    const watches = (await b.request({ method: 'GET', url: '/v1/watches' })).json<{ watches: { path: string; state: string; fileCount: number }[] }>();
    expect(watches.watches).toEqual([expect.objectContaining({ path: folder, state: 'watching', fileCount: 1 })]);
  });

  it('a changed record is updated in place, keeping its id and times', async () => {
    const records = lines(first);
    const memory = records.find((record) => record.type === 'memory' && record.description === 'planting') as Record<string, unknown>;
    // A line without a context or an author clears the memory's, as a missing description clears that.
    const { context: _context, author: _author, ...withoutContext } = memory;
    const changed = { ...withoutContext, tags: ['garden', 'autumn'] };
    const header = records[0];
    const report = await importInto(b, [header, changed].map((record) => JSON.stringify(record)).join('\n'));
    expect(report.byType.memory).toEqual({ created: 0, updated: 1, unchanged: 0, failed: 0 });
    const stored = (await b.request({ method: 'GET', url: `/v1/memory/${String(memory.id)}` })).json<{ data: Record<string, unknown> }>().data;
    expect(stored).toMatchObject({ tags: ['garden', 'autumn'], createdAt: memory.createdAt, updatedAt: memory.updatedAt });
    expect(stored.context).toBeUndefined();
    expect(stored.author).toBeUndefined();
    // Back to the original: the copy equals the source again.
    await importInto(b, first);
    await settle(b);
    expect(stable(await exportOf(b))).toBe(stable(first));
  });

  it('a memory whose content changed since gets the content and knowledge of the file back, and nothing of the change stays', async () => {
    const records = lines(first);
    const sarah = records.find((record) => record.type === 'memory' && (record.tags as string[]).includes('acme')) as Line;
    const edited = await b.request({
      method: 'PATCH',
      url: `/v1/memory/${String(sarah.id)}`,
      payload: { content: 'Priya Natarajan runs Initech in Madrid.' },
    });
    expect(edited.statusCode).toBe(200);
    expect((await b.request({ method: 'GET', url: '/v1/entities?search=priya' })).json<EntitiesResponse>().entities).toHaveLength(1);
    const report = await importInto(b, first);
    expect(report.errors).toEqual([]);
    expect(report.byType.memory).toMatchObject({ updated: 1, unchanged: 4 });
    await settle(b);
    expect((await b.request({ method: 'GET', url: '/v1/entities?search=priya' })).json<EntitiesResponse>().entities).toEqual([]);
    expect(stable(await exportOf(b))).toBe(stable(first));
  });
});

describe('re-importing into the account it came from merges knowledge by memory', () => {
  let d: TestApp;

  beforeAll(async () => {
    d = await createTestApp();
  });

  afterAll(async () => {
    await d.close();
  });

  const entity = async (t: TestApp, name: string) =>
    (await t.request({ method: 'GET', url: `/v1/entities?search=${encodeURIComponent(name)}` })).json<EntitiesResponse>().entities.find((e) => e.name === name);

  it('an older export or a filtered one loses nothing saved since or outside the filter', async () => {
    await save(d, { content: 'Sarah Chen works at Acme Corp in Berlin. She met David Okafor to discuss the roadmap.', spaceId: 'work', createdAt: '2024-01-10T09:00:00Z' });
    await settle(d);
    const older = await exportOf(d);
    // Saved after that export, in another space: Sarah and David again, and a fact that supersedes one.
    await save(d, { content: 'Sarah Chen works at Globex now. She met David Okafor again in Munich.', spaceId: 'home', createdAt: '2025-02-01T09:00:00Z' });
    await settle(d);
    const now = await exportOf(d);
    const sarah = await entity(d, 'Sarah Chen');
    expect(sarah?.relatedDocuments).toHaveLength(2);
    const facts = (await d.request({ method: 'GET', url: '/v1/facts?entity=Sarah%20Chen&includeSuperseded=true' })).json<FactsResponse>();
    expect(facts.facts.some((fact) => fact.supersededBy !== null)).toBe(true);
    // The precondition of the test: knowledge the older file holds and the later memory added to.
    const grown = lines(now).filter((record) => record.type !== 'memory' && record.type !== 'header' && record.type !== 'end');
    const before = new Map(lines(older).map((record) => [String(record.id), JSON.stringify(record)]));
    expect(grown.filter((record) => before.has(String(record.id)) && before.get(String(record.id)) !== JSON.stringify(record)).map((r) => r.type)).toEqual(
      expect.arrayContaining(['entity', 'fact', 'edge']),
    );

    for (const file of [older, await exportOf(d, '?spaceId=work')]) {
      const dry = await importInto(d, file, '?dryRun=true');
      const report = await importInto(d, file);
      expect(report.errors).toEqual([]);
      // The file adds nothing to what the account holds: every record unchanged, nothing written.
      expect(report).toMatchObject({ created: 0, updated: 0, failed: 0 });
      expect(dry).toMatchObject({ created: 0, updated: 0, failed: 0, unchanged: report.unchanged });
      await settle(d);
      expect(stable(await exportOf(d))).toBe(stable(now));
    }
  });

  it("the file's contribution wins for the memories its line names; the others stay", async () => {
    const now = lines(await exportOf(d));
    const sarah = now.find((record) => record.type === 'entity' && record.name === 'Sarah Chen') as Line & { contributions: Record<string, { mentions: number }> };
    const [memoryId, contribution] = Object.entries(sarah.contributions)[0] ?? [];
    expect(memoryId).toBeDefined();
    // A file whose line gives one memory's contribution other mentions, and names only that memory.
    const edited = { ...sarah, contributions: { [String(memoryId)]: { ...contribution, mentions: 7 } } };
    const report = await importInto(d, [now[0], edited].map((record) => JSON.stringify(record)).join('\n'));
    expect(report.errors).toEqual([]);
    expect(report.byType.entity).toEqual({ created: 0, updated: 1, unchanged: 0, failed: 0 });
    const after = lines(await exportOf(d)).find((record) => record.id === sarah.id) as typeof sarah;
    // Its other memory's contribution stays; the one it names is the file's; the totals derive from both.
    expect(Object.keys(after.contributions).sort()).toEqual(Object.keys(sarah.contributions).sort());
    expect(after.contributions[String(memoryId)]?.mentions).toBe(7);
    expect(after.mentions).toBe((sarah.mentions as number) - (contribution?.mentions ?? 0) + 7);
  });
});

describe('vectors, filters, id-less lines, dry runs and errors', () => {
  let c: TestApp;

  beforeAll(async () => {
    c = await createTestApp();
  });

  afterAll(async () => {
    await c.close();
  });

  it('--with-vectors carries the vectors; the import uses them only from the same embedding model', async () => {
    const withVectors = await exportOf(a, '?withVectors=true');
    const records = lines(withVectors);
    const memory = records.find((record) => record.type === 'memory' && record.description === 'planting') as MemoryLine;
    expect(memory.vectors.length).toBeGreaterThan(0);
    expect(memory.vectors[0]?.vector).toHaveLength(a.deps.embedder.dimension);
    // The context travels with the memory and is part of what its passages index.
    expect(memory.context).toBe('What grows well next to tomatoes?');
    expect(memory.vectors[0]?.text).toContain('What grows well next to tomatoes?');
    // So does the author, heading each passage.
    expect(memory.author).toBe('Sam');
    expect(memory.vectors[0]?.text.startsWith('Sam: ')).toBe(true);
    // A recognisable vector: if the import embedded instead, the export would not give it back.
    const marked = memory.vectors.map((chunk) => ({ ...chunk, vector: chunk.vector.map((_, i) => (i === 0 ? 1 : 0)) }));
    const header = records[0] as Line;
    const body = (head: Record<string, unknown>) => [head, { ...memory, vectors: marked }].map((record) => JSON.stringify(record)).join('\n');
    expect((await importInto(c, body(header))).byType.memory.created).toBe(1);
    const back = lines(await exportOf(c, '?withVectors=true')).find((record) => record.id === memory.id) as MemoryLine;
    expect(back.vectors.map((chunk) => chunk.vector[0])).toEqual(marked.map(() => 1));

    // Another model's vectors are not comparable: the memory is embedded again.
    await c.request({ method: 'DELETE', url: `/v1/memory/${String(memory.id)}` });
    expect((await importInto(c, body({ ...header, embedding: { modelId: 'other/model', dimension: a.deps.embedder.dimension } }))).byType.memory.created).toBe(1);
    const embedded = lines(await exportOf(c, '?withVectors=true')).find((record) => record.id === memory.id) as MemoryLine;
    expect(embedded.vectors).toEqual(memory.vectors);
    await c.request({ method: 'DELETE', url: `/v1/memory/${String(memory.id)}` });
  });

  it('a space filter exports that space and only the knowledge its memories contribute', async () => {
    const records = lines(await exportOf(a, '?spaceId=work&since=2020-01-01'));
    expect(records[0]).toMatchObject({ filter: { spaceId: 'work', since: '2020-01-01T00:00:00.000Z' } });
    const memories = records.filter((record) => record.type === 'memory');
    expect(memories.map((record) => record.spaceId)).toEqual(['work', 'work']);
    const ids = new Set(memories.map((record) => record.id));
    for (const record of records.filter((entry) => entry.type === 'entity')) {
      for (const id of record.memoryIds as string[]) expect(ids.has(id)).toBe(true);
    }
    expect(records.filter((record) => record.type === 'entity').map((record) => record.name)).not.toContain('Tomatoes');
    expect(records.filter((record) => record.type === 'space')).toEqual([{ type: 'space', id: 'work', memories: 2 }]);
    expect(records.filter((record) => record.type === 'watch')).toEqual([]);
    // The partial export imports cleanly: nothing points at a memory it lacks.
    const report = await importInto(c, records.map((record) => JSON.stringify(record)).join('\n'));
    expect(report.errors).toEqual([]);
    expect(report.byType.memory.created).toBe(2);
    expect((await c.request({ method: 'GET', url: '/v1/facts?entity=Sarah%20Chen&includeSuperseded=true' })).json<FactsResponse>().facts.length).toBeGreaterThan(1);
    const since = lines(await exportOf(a, '?since=2025-01-01'));
    expect(since.filter((record) => record.type === 'memory').every((record) => String(record.createdAt) >= '2025' || record.updatedAt !== null)).toBe(true);
  });

  it('lines without ids (importers) get stable ids from content and time, and are extracted like saves', async () => {
    const body = JSON.stringify({ records: [
      { type: 'memory', content: 'Maria Lopez joined Initech as CTO.', createdAt: '2020-06-01T08:00:00Z', tags: ['chat', 'user'] },
      { type: 'memory', content: 'A turbo line', turbo: true },
    ] });
    const send = () => c.request({ method: 'POST', url: '/v1/import', payload: body, headers: { 'content-type': 'application/json' } });
    const once = (await send()).json<ImportResponse>();
    expect(once.byType.memory).toEqual({ created: 2, updated: 0, unchanged: 0, failed: 0 });
    const twice = (await send()).json<ImportResponse>();
    // The dated line is found by its id; the undated one was dated when first imported, and is found by that.
    expect(twice.byType.memory).toEqual({ created: 0, updated: 0, unchanged: 2, failed: 0 });
    const turbo = (await c.request({ method: 'GET', url: '/v1/memories?limit=100' })).json<ListResponse>().data.filter((memory) => memory.content === 'A turbo line');
    expect(turbo).toHaveLength(1);
    const list = (await c.request({ method: 'GET', url: '/v1/memories?tags=chat' })).json<ListResponse>();
    expect(list.data).toEqual([expect.objectContaining({ createdAt: '2020-06-01T08:00:00.000Z' })]);
    expect(ulidTime(list.data[0]?.id ?? '')).toBe(Date.parse('2020-06-01T08:00:00Z'));
    const entities = (await c.request({ method: 'GET', url: '/v1/entities?search=maria' })).json<EntitiesResponse>();
    expect(entities.entities.map((entity) => entity.name)).toEqual(['Maria Lopez']);
  });

  it('an undated line is found again only as the memory an import made of it: same text and space', async () => {
    const text = 'Undated note about the greenhouse heater.';
    const saved = await save(c, { content: text, spaceId: 'garden' });
    const send = async (records: Record<string, unknown>[], query = '') =>
      (await c.request({ method: 'POST', url: `/v1/import${query}`, payload: JSON.stringify({ records }), headers: { 'content-type': 'application/json' } })).json<ImportResponse>();
    // A memory saved otherwise with the same text is not the import's: the line creates its own, once.
    expect((await send([{ type: 'memory', content: text, spaceId: 'garden' }])).byType.memory).toMatchObject({ created: 1 });
    expect((await send([{ type: 'memory', content: text, spaceId: 'garden' }], '?dryRun=true')).byType.memory).toMatchObject({ created: 0, unchanged: 1 });
    expect((await send([{ type: 'memory', content: text, spaceId: 'garden' }])).byType.memory).toMatchObject({ created: 0, unchanged: 1 });
    // Another space, or changed text, is another memory.
    expect((await send([{ type: 'memory', content: text, spaceId: 'shed' }])).byType.memory).toMatchObject({ created: 1 });
    expect((await send([{ type: 'memory', content: `${text} Fixed.`, spaceId: 'garden' }])).byType.memory).toMatchObject({ created: 1 });
    const garden = (await c.request({ method: 'GET', url: '/v1/memories?spaceId=garden&limit=100' })).json<ListResponse>().data;
    expect(garden.filter((memory) => memory.content === text).map((memory) => memory.id).sort()).toHaveLength(2);
    expect(garden.some((memory) => memory.id === saved)).toBe(true);
  });

  it('a dry run reports what would change and writes nothing', async () => {
    const d = await createTestApp();
    try {
      const report = await importInto(d, await exportOf(a), '?dryRun=true');
      expect(report).toMatchObject({ dryRun: true, failed: 0 });
      expect(report.byType.memory.created).toBe(5);
      expect(report.byType.entity.created).toBeGreaterThan(0);
      expect((await d.request({ method: 'GET', url: '/v1/memories' })).json<ListResponse>().pagination.total).toBe(0);
      expect((await d.request({ method: 'GET', url: '/v1/watches' })).json<{ watches: unknown[] }>().watches).toEqual([]);
    } finally {
      await d.close();
    }
  });

  it('bad lines fail alone, with their position; ids of another tenant and watches of non-owners are refused', async () => {
    const exported = lines(await exportOf(a));
    const memory = exported.find((record) => record.type === 'memory') as Record<string, unknown>;
    const watch = exported.find((record) => record.type === 'watch') as Record<string, unknown>;
    const body = [
      '{"type":"memory","content":"fine line"}',
      'not json',
      '{"type":"gadget"}',
      '{"type":"memory","id":"mem_123","content":"bad id"}',
      '{"type":"memory","content":"   "}',
      JSON.stringify(memory),
    ].join('\n');
    // The test sandbox of the same owner is another tenant: it cannot take the live memory's id.
    const key = await c.request({ method: 'POST', url: '/keys', payload: { name: 'sandbox', type: 'test' } });
    const sandbox = { authorization: `Bearer ${key.json<{ data: { key: string } }>().data.key}` };
    await importInto(c, JSON.stringify(memory));
    const report = await importInto(c, body, '', sandbox);
    expect(report.byType.memory).toMatchObject({ created: 1, failed: 3 });
    expect(report.failed).toBe(5);
    expect(report.errors.map((error) => [error.index, error.type])).toEqual([
      [1, null],
      [2, 'gadget'],
      [3, 'memory'],
      [4, 'memory'],
      [5, 'memory'],
    ]);
    expect(report.errors[4]?.error).toMatch(/another account or sandbox/);

    const user = await c.request({ method: 'POST', url: '/admin/users', payload: { email: 'ana@example.org', name: 'Ana' } });
    const ana = { authorization: `Bearer ${user.json<{ key: { key: string } }>().key.key}` };
    const refused = await importInto(c, JSON.stringify(watch), '', ana);
    expect(refused.byType.watch.failed).toBe(1);
    expect(refused.errors[0]?.error).toMatch(/FORBIDDEN: only the owner/);

    const newer = await c.request({
      method: 'POST',
      url: '/v1/import',
      payload: '{"type":"header","format":"mem-export","version":2}\n',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(newer.statusCode).toBe(400);
    expect(newer.json()).toMatchObject({ error: 'VALIDATION_ERROR', message: expect.stringMatching(/version 2/) });
  });
});
