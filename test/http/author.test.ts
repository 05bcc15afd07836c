import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * A memory's author (who wrote or said it): returned with the memory, indexed with each passage, and weighed
 * by hybrid search when the query names an author of the candidates.
 */
let t: TestApp;
const ids: Record<string, string> = {};

async function save(payload: Record<string, unknown>): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/v1/save', payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().documentId;
}

beforeAll(async () => {
  t = await createTestApp();
  ids.caroline = await save({ content: 'I went to a pottery class yesterday.', author: 'Caroline', spaceId: 'chat' });
  ids.melanie = await save({ content: 'I went to a pottery class yesterday, and it was great fun.', author: 'Melanie', spaceId: 'chat' });
  ids.anonymous = await save({ content: 'Went to a pottery class yesterday.', spaceId: 'chat' });
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

type Result = { id: string; score: number; content: string; author?: string };

async function search(body: Record<string, unknown>): Promise<Result[]> {
  const response = await t.request({ method: 'POST', url: '/v1/search', payload: { spaceId: 'chat', threshold: 0, ...body } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ results: Result[] }>().results;
}

/** The explained features of each result (search with explain), by memory id. */
async function featuresOf(query: string): Promise<(id: string | undefined) => Record<string, number>> {
  const response = await t.request({ method: 'POST', url: '/v1/search', payload: { spaceId: 'chat', threshold: 0, query, explain: true } });
  expect(response.statusCode, response.body).toBe(200);
  const results = response.json<{ results: { id: string; explanation: { features: Record<string, number> } }[] }>().results;
  return (id) => {
    const hit = results.find((result) => result.id === id);
    if (!hit) throw new Error(`${id} not among the results`);
    return hit.explanation.features;
  };
}

describe('memory author', () => {
  it('is returned by GET, the list and search, and is not part of the content', async () => {
    const got = await t.request({ method: 'GET', url: `/v1/memory/${ids.caroline}` });
    expect(got.json().data).toMatchObject({ content: 'I went to a pottery class yesterday.', author: 'Caroline' });
    const anonymous = await t.request({ method: 'GET', url: `/v1/memory/${ids.anonymous}` });
    expect(anonymous.json().data).not.toHaveProperty('author');

    const list = (await t.request({ method: 'GET', url: '/v1/memories?spaceId=chat' })).json<{ data: { id: string; author?: string }[] }>().data;
    expect(Object.fromEntries(list.map((memory) => [memory.id, memory.author]))).toEqual({
      [ids.caroline as string]: 'Caroline',
      [ids.melanie as string]: 'Melanie',
      [ids.anonymous as string]: undefined,
    });
    const results = await search({ query: 'pottery class' });
    expect(results.find((result) => result.id === ids.melanie)).toMatchObject({ author: 'Melanie', content: expect.stringMatching(/^I went/) });
  });

  it('ranks the named author first in hybrid search, without touching memories of no author or queries that name no author', async () => {
    const top = await search({ query: 'What did Caroline do yesterday?', hybrid: true });
    expect(top[0]?.id).toBe(ids.caroline);

    const melanieFirst = await search({ query: 'What did Melanie do yesterday?', hybrid: true });
    expect(melanieFirst[0]?.id).toBe(ids.melanie);

    // Naming an author marks what others said; the memory without an author only misses the name.
    const caroline = await featuresOf('What did Caroline do yesterday?');
    expect(caroline(ids.caroline)).toMatchObject({ missingNames: 0, otherAuthor: 0 });
    expect(caroline(ids.melanie)).toMatchObject({ missingNames: 1, otherAuthor: 1 });
    expect(caroline(ids.anonymous)).toMatchObject({ missingNames: 1, otherAuthor: 0 });
    // A lower-case query has no names.
    const plain = await featuresOf('what did caroline do yesterday?');
    for (const id of [ids.caroline, ids.melanie, ids.anonymous]) expect(plain(id)).toMatchObject({ missingNames: 0, otherAuthor: 0 });
    // Porto is nobody's author: all three miss the name alike, and no author is marked.
    const porto = await featuresOf('Did anyone go to pottery class in Porto?');
    for (const id of [ids.caroline, ids.melanie, ids.anonymous]) expect(porto(id)).toMatchObject({ missingNames: 1, otherAuthor: 0 });
  });

  it('is a field of structured queries: filter, sort and fields', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/query',
      payload: { filters: { spaceId: 'chat', author: { $in: ['Caroline', 'Melanie'] } }, sort: { author: -1 }, fields: ['author', 'content'] },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().results).toEqual([
      { id: ids.melanie, author: 'Melanie', content: expect.any(String) },
      { id: ids.caroline, author: 'Caroline', content: expect.any(String) },
    ]);
    const bad = await t.request({ method: 'POST', url: '/v1/query', payload: { filters: { author: { $regex: 'x' } } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR' });
  });

  it('heads the passages it indexes: a semantic search for the author finds their memory first', async () => {
    const results = await search({ query: 'Caroline and pottery' });
    expect(results[0]?.id).toBe(ids.caroline);
  });

  it('a PATCH changes it (re-embedding) or removes it with ""; whitespace is collapsed', async () => {
    const id = await save({ content: 'The quarterly report is due on Friday.', author: 'Priya', spaceId: 'work' });
    const patched = await t.request({ method: 'PATCH', url: `/v1/memory/${id}`, payload: { author: '  Kofi   Mensah ' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.author).toBe('Kofi Mensah');
    const found = await t.request({ method: 'POST', url: '/v1/search', payload: { query: 'Kofi Mensah report', spaceId: 'work', threshold: 0 } });
    const before = found.json().results[0].score as number;
    const removed = await t.request({ method: 'PATCH', url: `/v1/memory/${id}`, payload: { author: '' } });
    expect(removed.json().data).not.toHaveProperty('author');
    const after = await t.request({ method: 'POST', url: '/v1/search', payload: { query: 'Kofi Mensah report', spaceId: 'work', threshold: 0 } });
    expect(after.json().results[0].score).toBeLessThan(before);
  });

  it('is kept by turbo and async saves', async () => {
    const turbo = await t.request({ method: 'POST', url: '/v1/turbo/save', payload: { content: 'Back from Lisbon.', author: 'Zara', spaceId: 'chat' } });
    expect(turbo.statusCode, turbo.body).toBe(201);
    expect((await t.request({ method: 'GET', url: `/v1/memory/${turbo.json().documentId}` })).json().data.author).toBe('Zara');

    const accepted = await t.request({ method: 'POST', url: '/v1/save', payload: { content: 'Landed in Oslo.', author: 'Zara', spaceId: 'chat', async: true } });
    expect(accepted.statusCode, accepted.body).toBe(201);
    let documentId: string | undefined;
    for (let i = 0; i < 200 && !documentId; i++) {
      const status = await t.request({ method: 'GET', url: `/v1/save/status/${accepted.json().pendingId}` });
      documentId = status.json().documentId;
      if (!documentId) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await t.request({ method: 'GET', url: `/v1/memory/${documentId}` })).json().data.author).toBe('Zara');
  });

  it('is kept by bulk ingest items, with their context; URL items cannot have either', async () => {
    const ingested = await t.request({
      method: 'POST',
      url: '/v1/ingest',
      payload: {
        async: false,
        items: [
          { content: 'How was the trip?', author: 'Zara', spaceId: 'import' },
          { content: 'Rainy, but worth it.', author: 'Kofi', context: 'Zara: How was the trip?', spaceId: 'import' },
        ],
      },
    });
    expect(ingested.statusCode, ingested.body).toBe(200);
    const [first, second] = ingested.json().results as { documentId: string }[];
    expect((await t.request({ method: 'GET', url: `/v1/memory/${first?.documentId}` })).json().data).toMatchObject({ author: 'Zara' });
    expect((await t.request({ method: 'GET', url: `/v1/memory/${second?.documentId}` })).json().data).toMatchObject({
      author: 'Kofi',
      context: 'Zara: How was the trip?',
    });

    const refused = await t.request({
      method: 'POST',
      url: '/v1/ingest',
      payload: { items: [{ content: 'fine', author: 'Zara' }, { url: 'https://example.org/a', author: 'Zara' }, { url: 'https://example.org/b', context: 'x' }] },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR', invalidIndices: [1, 2] });
  });

  it('rejects an author that is not text, too long, several lines, or sent with a URL, and stores nothing', async () => {
    const count = async () => (await t.request({ method: 'GET', url: '/v1/memories?limit=100' })).json().data.length;
    const before = await count();
    for (const payload of [
      { content: 'a note', author: 42 },
      { content: 'a note', author: 'x'.repeat(201) },
      { content: 'a note', author: 'Caroline\nMelanie' },
      { url: 'https://example.org/page', author: 'Caroline' },
    ]) {
      const response = await t.request({ method: 'POST', url: '/v1/save', payload });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR', message: expect.any(String) });
    }
    const turbo = await t.request({ method: 'POST', url: '/v1/turbo/save', payload: { content: 'a note', author: ['no'] } });
    expect(turbo.statusCode).toBe(400);
    const patch = await t.request({ method: 'PATCH', url: `/v1/memory/${ids.caroline}`, payload: { author: 'a\r\nb' } });
    expect(patch.statusCode).toBe(400);
    expect(patch.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR' });
    expect(await count()).toBe(before);
    expect((await t.request({ method: 'GET', url: `/v1/memory/${ids.caroline}` })).json().data.author).toBe('Caroline');
  });
});
