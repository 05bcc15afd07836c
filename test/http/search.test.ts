import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids: Record<string, string> = {};

const NOTES: Record<string, { content: string; tags?: string[]; spaceId?: string }> = {
  roadmap: { content: 'Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 product roadmap.', tags: ['work', 'acme'], spaceId: 'work' },
  dentist: { content: 'Dentist appointment on Tuesday at 9am, remember to floss.', tags: ['health'], spaceId: 'personal' },
  recipe: { content: 'Grandma\'s lasagna recipe: layer pasta, ricotta, tomato sauce and mozzarella; bake 45 minutes.', tags: ['food'], spaceId: 'personal' },
  running: { content: 'Ran 10 kilometres along the river this morning, new personal best time.', tags: ['health', 'sport'], spaceId: 'personal' },
  invoice: { content: 'Invoice 4471 from Globex is due at the end of the month; pay by bank transfer.', tags: ['work', 'finance'], spaceId: 'work' },
};

beforeAll(async () => {
  t = await createTestApp();
  for (const [name, note] of Object.entries(NOTES)) {
    const response = await t.request({ method: 'POST', url: '/v1/save', payload: note });
    ids[name] = response.json().documentId;
  }
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

async function search(body: Record<string, unknown>) {
  const response = await t.request({ method: 'POST', url: '/v1/search', payload: body });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ results: { id: string; score: number }[]; pagination: Record<string, unknown> }>();
}

describe('POST /v1/search', () => {
  it('ranks by meaning and returns the spec fields', async () => {
    const body = await search({ query: 'pasta dish with cheese baked in the oven', threshold: 0, hybrid: false });
    expect(body.results[0]?.id).toBe(ids.recipe);
    expect(body.results[0]).toEqual({
      id: ids.recipe,
      content: NOTES.recipe?.content,
      title: expect.any(String),
      score: expect.any(Number),
      tags: ['food'],
      createdAt: expect.any(String),
      spaceId: 'personal',
    });
    const scores = body.results.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(0), expect(score).toBeLessThanOrEqual(1);
  });

  it('drops results below the threshold', async () => {
    const all = await search({ query: 'running exercise along the river', threshold: 0 });
    const strict = await search({ query: 'running exercise along the river', threshold: 0.9 });
    expect(strict.results.length).toBeLessThan(all.results.length);
    for (const result of strict.results) expect(result.score).toBeGreaterThanOrEqual(0.9);
    // A threshold between the two lowest distinct scores (well clear of both, as scores are rounded to
    // four decimals): exactly the results above it stay.
    const distinct = [...new Set(all.results.map((result) => result.score))].sort((a, b) => a - b);
    const [lowest, next] = distinct;
    expect(next).toBeDefined();
    const cut = ((lowest ?? 0) + (next ?? 0)) / 2;
    const between = await search({ query: 'running exercise along the river', threshold: cut });
    expect(between.results.length).toBe(all.results.filter((result) => result.score > cut).length);
    expect(between.results.length).toBeLessThan(all.results.length);
  });

  it('applies space, tag and date filters before ranking', async () => {
    const work = await search({ query: 'appointment', threshold: 0, spaceId: 'work' });
    expect(work.results.map((result) => result.id).sort()).toEqual([ids.roadmap, ids.invoice].sort());
    const health = await search({ query: 'money', threshold: 0, tags: ['health'], limit: 1 });
    // Filters are applied inside the store, so a filtered search still fills `limit`.
    expect(health.results).toHaveLength(1);
    expect([ids.dentist, ids.running]).toContain(health.results[0]?.id);
    const none = await search({ query: 'money', threshold: 0, after: '2999-01-01' });
    expect(none.results).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const all = await search({ query: 'money', threshold: 0, after: today, before: today });
    expect(all.results).toHaveLength(5);
  });

  it('paginates with total and hasMore', async () => {
    const first = await search({ query: 'notes', threshold: 0, limit: 2 });
    expect(first.pagination).toEqual({ limit: 2, offset: 0, total: 5, hasMore: true });
    const last = await search({ query: 'notes', threshold: 0, limit: 2, offset: 4 });
    expect(last.results).toHaveLength(1);
    expect(last.pagination).toEqual({ limit: 2, offset: 4, total: 5, hasMore: false });
    const everything = await search({ query: 'notes', threshold: 0, limit: 10 });
    expect([...first.results, ...(await search({ query: 'notes', threshold: 0, limit: 2, offset: 2 })).results, ...last.results].map((r) => r.id)).toEqual(
      everything.results.map((r) => r.id),
    );
  });

  it('hybrid (the default) adds keyword evidence: exact terms lift the memory that has them', async () => {
    const hybrid = await search({ query: 'Globex invoice 4471', threshold: 0 });
    expect(hybrid.results[0]?.id).toBe(ids.invoice);
    expect((await search({ query: 'Globex invoice 4471', threshold: 0, hybrid: true })).results).toEqual(hybrid.results);
    const semantic = await search({ query: 'Globex invoice 4471', threshold: 0, hybrid: false });
    expect(hybrid.results.map((result) => result.id).sort()).toEqual(semantic.results.map((result) => result.id).sort());
    const top = hybrid.results[0]?.score ?? 0;
    const second = hybrid.results[1]?.score ?? 0;
    // A keyword match on rare terms separates the memory from the rest by a clear margin.
    expect(top - second).toBeGreaterThan(0.2);
    for (const result of hybrid.results) expect(result.score).toBeGreaterThanOrEqual(0), expect(result.score).toBeLessThanOrEqual(1);
  });

  it('survives queries full of full-text syntax', async () => {
    for (const query of ['"unbalanced', 'AND OR NOT', "don't * ? ~ ^ :", 'x\' OR 1=1 --', '()[]{}']) {
      const body = await search({ query, threshold: 0, hybrid: true });
      expect(Array.isArray(body.results)).toBe(true);
    }
  });

  it('gives VALIDATION_ERROR for a missing query, threshold outside 0-1 and limits', async () => {
    const cases: Record<string, unknown>[] = [
      {},
      { query: '' },
      { query: '   ' },
      { query: 'x', threshold: 1.5 },
      { query: 'x', threshold: -0.1 },
      { query: 'x', limit: 0 },
      { query: 'x', limit: 101 },
      { query: 'x', offset: -1 },
      { query: 'x', tags: 'work' },
      { query: 'x', after: 'not a date' },
      { query: 'x', hybrid: 'yes' },
    ];
    for (const payload of cases) {
      const response = await t.request({ method: 'POST', url: '/v1/search', payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR', message: expect.any(String) });
    }
    const threshold = await t.request({ method: 'POST', url: '/v1/search', payload: { query: 'x', threshold: 2 } });
    expect(threshold.json().message).toMatch(/threshold/);
  });
});
