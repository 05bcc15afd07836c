import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_FIELDS } from '../../src/api/contract.js';
import { newId } from '../../src/core/ids.js';
import { MEMORY_FIELDS } from '../../src/core/query/fields.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids: Record<string, string> = {};

const NOTES: Record<string, { content: string; tags?: string[]; spaceId?: string; metadata?: Record<string, unknown> }> = {
  roadmap: { content: 'Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 product roadmap.', tags: ['work', 'acme'], spaceId: 'work', metadata: { status: 'todo', priority: 3 } },
  dentist: { content: 'Dentist appointment on Tuesday at 9am, remember to floss.', tags: ['health'], spaceId: 'personal', metadata: { status: 'done', priority: 1 } },
  recipe: { content: "Grandma's lasagna recipe: layer pasta, ricotta, tomato sauce and mozzarella; bake 45 minutes.", tags: ['food'], spaceId: 'personal' },
  running: { content: 'Ran 10 kilometres along the river this morning, new personal best time.', tags: ['health', 'sport'], spaceId: 'personal', metadata: { status: 'doing', priority: 2 } },
  invoice: { content: 'Invoice 4471 from Acme is due at the end of the month; pay by bank transfer.', tags: ['work', 'finance', 'acme'], spaceId: 'work', metadata: { status: 'done', priority: 2 } },
};

/** Memories with chosen creation dates, written through the store (the API always stamps "now"). */
const DATED: { name: string; createdAt: string; updatedAt?: string; tags: string[]; status: string }[] = [
  { name: 'd1', createdAt: '2024-12-30T10:00:00Z', tags: ['dated', 'a'], status: 'todo' }, // Monday, ISO week 2025-W01
  { name: 'd2', createdAt: '2025-01-05T23:59:59Z', tags: ['dated', 'a'], status: 'todo' }, // Sunday, same week
  { name: 'd3', createdAt: '2025-01-06T00:00:00Z', tags: ['dated', 'b'], status: 'done', updatedAt: '2025-03-01T00:00:00Z' },
  { name: 'd4', createdAt: '2025-01-31T12:00:00Z', tags: ['dated', 'a', 'b'], status: 'todo' },
  { name: 'd5', createdAt: '2025-02-01T12:00:00Z', tags: ['dated'], status: 'doing', updatedAt: '2025-03-02T00:00:00Z' },
  { name: 'd6', createdAt: '2025-02-03T12:00:00Z', tags: ['dated', 'c'], status: 'todo' },
  { name: 'd7', createdAt: '2025-06-15T12:00:00Z', tags: ['dated', 'c'], status: 'done' },
  { name: 'd8', createdAt: '2026-01-01T00:00:00Z', tags: ['dated'], status: 'todo' },
];

beforeAll(async () => {
  t = await createTestApp();
  for (const [name, note] of Object.entries(NOTES)) {
    const response = await t.request({ method: 'POST', url: '/v1/save', payload: note });
    ids[name] = response.json().documentId;
  }
  const store = t.deps.storage.memories(t.deps.ownerId);
  const vector = new Float32Array(t.deps.embedder.dimension).fill(1 / Math.sqrt(t.deps.embedder.dimension));
  for (const dated of DATED) {
    const createdAt = Date.parse(dated.createdAt);
    const id = newId('memory', createdAt);
    ids[dated.name] = id;
    await store.insert(
      {
        id,
        title: `dated ${dated.name}`,
        content: `dated note ${dated.name}`,
        description: '',
        context: '',
      author: '',
        tags: dated.tags,
        metadata: { status: dated.status },
        spaceId: 'archive',
        createdAt,
        updatedAt: dated.updatedAt ? Date.parse(dated.updatedAt) : null,
        contentHash: dated.name,
        turbo: false,
      },
      [{ seq: 0, text: `dated note ${dated.name}`, vector }],
    );
  }
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

interface QueryJson {
  success: true;
  results: Record<string, unknown>[];
  aggregations?: { countByTag?: Record<string, number>; dateHistogram?: { date: string; count: number }[] };
  pagination: { limit: number; offset: number; total: number; hasMore: boolean };
}

async function query(body: Record<string, unknown>): Promise<QueryJson> {
  const response = await t.request({ method: 'POST', url: '/v1/query', payload: body });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<QueryJson>();
}

const nameOf = (id: unknown) => Object.entries(ids).find(([, value]) => value === id)?.[0] ?? `?${String(id)}`;
const namesOf = (body: QueryJson) => body.results.map((result) => nameOf(result.id));

describe('POST /v1/query', () => {
  it('filters, sorts and projects: the issue example', async () => {
    const body = await query({
      filters: { $and: [{ tags: { $in: ['acme'] } }, { 'metadata.status': { $ne: 'done' } }] },
      sort: { createdAt: -1 },
      fields: ['id', 'title', 'tags'],
      limit: 20,
    });
    expect(body).toEqual({
      success: true,
      results: [{ id: ids.roadmap, title: expect.any(String), tags: ['work', 'acme'] }],
      pagination: { limit: 20, offset: 0, total: 1, hasMore: false },
    });
  });

  it('returns every field by default, newest first, without score or aggregations', async () => {
    const body = await query({ filters: { spaceId: 'personal' } });
    expect(namesOf(body)).toEqual(['running', 'recipe', 'dentist']);
    expect(body.results[0]).toEqual({
      id: ids.running,
      title: expect.any(String),
      content: NOTES.running?.content,
      description: '',
      tags: ['health', 'sport'],
      metadata: { status: 'doing', priority: 2 },
      spaceId: 'personal',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(body.aggregations).toBeUndefined();
    const dated = await query({ filters: { 'metadata.status': 'done', spaceId: 'archive' }, fields: ['updatedAt', 'createdAt'] });
    expect(dated.results).toEqual([
      { id: ids.d7, createdAt: '2025-06-15T12:00:00.000Z' },
      { id: ids.d3, createdAt: '2025-01-06T00:00:00.000Z', updatedAt: '2025-03-01T00:00:00.000Z' },
    ]);
  });

  it('sorts by several fields, including metadata paths', async () => {
    const body = await query({ filters: { spaceId: { $in: ['work', 'personal'] } }, sort: { 'metadata.priority': -1, createdAt: 1 }, fields: [] });
    expect(namesOf(body)).toEqual(['roadmap', 'running', 'invoice', 'dentist', 'recipe']);
    const bySpace = await query({ filters: { tags: { $nin: ['dated'] } }, sort: { spaceId: 1, createdAt: -1 }, fields: ['spaceId'] });
    expect(namesOf(bySpace)).toEqual(['running', 'recipe', 'dentist', 'invoice', 'roadmap']);
  });

  it('aggregates over the whole filtered set, not the page', async () => {
    const body = await query({
      filters: { tags: 'dated' },
      limit: 2,
      aggregate: { countByTag: true, dateHistogram: { field: 'createdAt', interval: 'week' } },
    });
    expect(body.results).toHaveLength(2);
    expect(body.pagination).toEqual({ limit: 2, offset: 0, total: 8, hasMore: true });
    expect(body.aggregations?.countByTag).toEqual({ dated: 8, a: 3, b: 2, c: 2 });
    expect(Object.keys(body.aggregations?.countByTag ?? {})).toEqual(['dated', 'a', 'b', 'c']);
    expect(body.aggregations?.dateHistogram).toEqual([
      { date: '2024-12-30', count: 2 },
      { date: '2025-01-06', count: 1 },
      { date: '2025-01-27', count: 2 },
      { date: '2025-02-03', count: 1 },
      { date: '2025-06-09', count: 1 },
      { date: '2025-12-29', count: 1 },
    ]);
    // 2025-01-05 is a Sunday (still the week of Monday 2024-12-30); Friday 2025-01-31 and Saturday
    // 2025-02-01 share the week of Monday 2025-01-27.

    const months = await query({ filters: { tags: 'dated' }, aggregate: { dateHistogram: { field: 'createdAt', interval: 'month' } } });
    expect(months.aggregations).toEqual({
      dateHistogram: [
        { date: '2024-12-01', count: 1 },
        { date: '2025-01-01', count: 3 },
        { date: '2025-02-01', count: 2 },
        { date: '2025-06-01', count: 1 },
        { date: '2026-01-01', count: 1 },
      ],
    });
    const years = await query({ filters: { tags: 'dated', 'metadata.status': 'todo' }, aggregate: { dateHistogram: { field: 'createdAt', interval: 'year' } } });
    expect(years.aggregations?.dateHistogram).toEqual([
      { date: '2024-01-01', count: 1 },
      { date: '2025-01-01', count: 3 },
      { date: '2026-01-01', count: 1 },
    ]);
    const days = await query({ filters: { tags: 'dated', createdAt: { $lt: '2025-01-07' } }, aggregate: { dateHistogram: { field: 'createdAt', interval: 'day' } } });
    expect(days.aggregations?.dateHistogram).toEqual([
      { date: '2024-12-30', count: 1 },
      { date: '2025-01-05', count: 1 },
      { date: '2025-01-06', count: 1 },
    ]);
    // Never-updated memories are not counted in an updatedAt histogram.
    const updated = await query({ filters: { tags: 'dated' }, aggregate: { dateHistogram: { field: 'updatedAt', interval: 'month' } } });
    expect(updated.aggregations?.dateHistogram).toEqual([{ date: '2025-03-01', count: 2 }]);
    const none = await query({ filters: { tags: 'nothing-has-this' }, aggregate: { countByTag: true, dateHistogram: { field: 'createdAt', interval: 'day' } } });
    expect(none).toMatchObject({ results: [], aggregations: { countByTag: {}, dateHistogram: [] }, pagination: { total: 0, hasMore: false } });
  });

  it('date filters: a date alone is the whole day; ranges are inclusive where asked', async () => {
    const body = await query({ filters: { createdAt: { $gte: '2025-01-06', $lte: '2025-02-01' } }, sort: { createdAt: 1 }, fields: [] });
    expect(namesOf(body)).toEqual(['d3', 'd4', 'd5']);
    const exact = await query({ filters: { createdAt: '2025-01-05T23:59:59Z' }, fields: [] });
    expect(namesOf(exact)).toEqual(['d2']);
  });

  it('paginates stably with total and hasMore, on both execution paths', async () => {
    for (const base of [{ filters: { tags: 'dated' } }, { filters: { 'metadata.status': { $in: ['todo', 'doing', 'done'] } }, sort: { 'metadata.status': 1 } }]) {
      const everything = await query({ ...base, limit: 100, fields: [] });
      const pages: unknown[] = [];
      for (let offset = 0; offset < everything.pagination.total; offset += 3) {
        const page = await query({ ...base, limit: 3, offset, fields: [] });
        expect(page.pagination).toEqual({ limit: 3, offset, total: everything.pagination.total, hasMore: offset + 3 < everything.pagination.total });
        pages.push(...page.results.map((result) => result.id));
      }
      expect(pages).toEqual(everything.results.map((result) => result.id));
    }
    const beyond = await query({ filters: { tags: 'dated' }, offset: 50 });
    expect(beyond).toMatchObject({ results: [], pagination: { total: 8, hasMore: false } });
  });

  it('query text ranks by relevance, carries score, and composes with filters, sorts and aggregations', async () => {
    const ranked = await query({ query: 'pasta dish with cheese baked in the oven', threshold: 0 });
    expect(ranked.results[0]?.id).toBe(ids.recipe);
    const scores = ranked.results.map((result) => result.score as number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(0), expect(score).toBeLessThanOrEqual(1);
    expect(ranked.pagination.total).toBe(Object.keys(ids).length);

    const filtered = await query({ query: 'exercise and fitness', threshold: 0, filters: { tags: 'health' }, fields: ['title'] });
    expect(namesOf(filtered).sort()).toEqual(['dentist', 'running']);
    expect(filtered.results[0]).toEqual({ id: ids.running, title: expect.any(String), score: expect.any(Number) });

    const byDate = await query({ query: 'notes', threshold: 0, filters: { spaceId: 'personal' }, sort: { createdAt: 1 }, fields: [] });
    expect(namesOf(byDate)).toEqual(['dentist', 'recipe', 'running']);
    for (const result of byDate.results) expect(result.score).toEqual(expect.any(Number));

    const counted = await query({ query: 'Acme', threshold: 0, filters: { 'metadata.priority': { $gte: 2 } }, aggregate: { countByTag: true } });
    expect(namesOf(counted).sort()).toEqual(['invoice', 'roadmap', 'running']);
    expect(counted.aggregations?.countByTag).toEqual({ acme: 2, work: 2, finance: 1, health: 1, sport: 1 });

    // The default threshold (0.5, as search) keeps unrelated memories out.
    const strict = await query({ query: 'pasta dish with cheese baked in the oven' });
    expect(strict.pagination.total).toBeLessThan(ranked.pagination.total);
    expect(namesOf(strict)).toContain('recipe');
  });

  it('answers injection attempts literally', async () => {
    for (const filters of [{ title: "x' OR 1=1 --" }, { spaceId: "work' OR '1'='1" }, { tags: { $in: ["') OR true --"] } }, { "metadata.it's": "x' OR 1=1 --" }]) {
      const body = await query({ filters });
      expect(body.pagination.total, JSON.stringify(filters)).toBe(0);
    }
    const all = await query({ filters: { title: { $ne: "x' OR 1=1 --" } }, fields: [] });
    expect(all.pagination.total).toBe(Object.keys(ids).length);
  });

  it('gives VALIDATION_ERROR naming the offending path for every bad request', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ filters: { title: { $foo: 'x' } } }, /^filters\.title: unknown operator \$foo/],
      [{ filters: { $and: [{ tags: 'a' }, { 'metadata.status': { $foo: 1 } }] } }, /^filters\.\$and\[1\]\.metadata\.status: unknown operator \$foo/],
      [{ filters: { $not: { title: 'x' } } }, /^filters: unknown operator \$not/],
      [{ filters: { colour: 'red' } }, /^filters\.colour: unknown field "colour"/],
      [{ filters: { "title' OR 1=1 --": 'x' } }, /unknown field/],
      [{ filters: { tags: { $in: 'work' } } }, /^filters\.tags\.\$in: \$in expects an array/],
      [{ filters: { $or: { tags: 'a' } } }, /^filters\.\$or: \$or expects a non-empty array of filter objects/],
      [{ filters: { createdAt: 'last tuesday' } }, /^filters\.createdAt: expected an ISO 8601 date/],
      [{ filters: { 'metadata.status': { $eq: { nested: true } } } }, /^filters\.metadata\.status\.\$eq: expected a string, number or boolean/],
      [{ filters: ['not', 'an', 'object'] }, /body\.filters/],
      [{ fields: ['title', 'colour'] }, /^fields\[1\]: unknown field "colour"/],
      [{ fields: 'title' }, /body\.fields/],
      [{ limit: 101 }, /body\.limit/],
      [{ limit: 0 }, /body\.limit/],
      [{ offset: -1 }, /body\.offset/],
      [{ aggregate: { dateHistogram: { field: 'createdAt', interval: 'fortnight' } } }, /body\.aggregate\.dateHistogram\.interval/],
      [{ aggregate: { dateHistogram: { field: 'title', interval: 'week' } } }, /body\.aggregate\.dateHistogram\.field/],
      [{ aggregate: { countByTag: 'yes' } }, /body\.aggregate\.countByTag/],
      [{ sort: { createdAt: 0 } }, /body\.sort\.createdAt: sort direction must be 1 \(ascending\) or -1 \(descending\)/],
      [{ sort: { createdAt: 'desc' } }, /body\.sort\.createdAt/],
      [{ sort: { colour: 1 } }, /^sort\.colour: unknown field/],
      [{ sort: { tags: 1 } }, /^sort\.tags: cannot sort by tags/],
      [{ sort: { score: -1 } }, /^sort\.score: score exists only when the query has text/],
      [{ query: '' }, /query must not be empty/],
      [{ query: 'x', threshold: 2 }, /threshold must be between 0 and 1/],
    ];
    for (const [payload, message] of cases) {
      const response = await t.request({ method: 'POST', url: '/v1/query', payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      const body = response.json();
      expect(body, JSON.stringify(payload)).toMatchObject({ success: false, error: 'VALIDATION_ERROR', message: expect.any(String) });
      expect(body.message, JSON.stringify(payload)).toMatch(message);
    }
    const unknownOperator = await t.request({ method: 'POST', url: '/v1/query', payload: { filters: { 'metadata.x': { $foo: 1 } } } });
    expect(unknownOperator.json().details).toEqual({ path: 'filters.metadata.x' });
  });

  it('needs an API key', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/query', payload: {} });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ success: false, error: 'UNAUTHORIZED' });
  });

  it('is in the OpenAPI document with its request and response schemas', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const operation = response.json().paths['/v1/query'].post;
    const body = operation.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['query', 'filters', 'sort', 'limit', 'offset', 'fields', 'aggregate']));
    expect(body.properties.limit).toMatchObject({ default: 20, maximum: 100 });
    expect(JSON.stringify(body.properties.aggregate)).toContain('"week"');
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401']));
    expect(Object.keys(operation.responses['200'].content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['success', 'results', 'aggregations', 'pagination']),
    );
    // The contract's field list is core's.
    expect([...QUERY_FIELDS]).toEqual([...MEMORY_FIELDS]);
  });
});
