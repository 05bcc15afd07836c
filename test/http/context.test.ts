import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * A memory's context (the message a reply answers): indexed with the memory, returned with it, never part
 * of its content. Two replies with the same words differ only by what they answer.
 */
let t: TestApp;
const REPLY = 'Yes, every Sunday afternoon since I was a kid.';
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp();
  for (const [name, context] of [
    ['chess', 'Do you still play chess with your father?'],
    ['church', 'Do you go to church with your family?'],
  ] as const) {
    const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content: REPLY, context, spaceId: 'chat' } });
    expect(response.statusCode, response.body).toBe(201);
    ids[name] = response.json().documentId;
  }
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

async function search(body: Record<string, unknown>) {
  const response = await t.request({ method: 'POST', url: '/v1/search', payload: { spaceId: 'chat', threshold: 0, ...body } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ results: { id: string; score: number; content: string }[] }>().results;
}

function scoreOf(results: { id: string; score: number }[], id: string | undefined): number {
  const hit = results.find((result) => result.id === id);
  if (!hit) throw new Error(`${id} not among the results`);
  return hit.score;
}

describe('memory context', () => {
  it('finds a reply through the message it answers, in semantic and hybrid search', async () => {
    for (const hybrid of [false, true]) {
      const results = await search({ query: 'does he play chess with his dad', hybrid });
      expect(results[0]?.id, `hybrid ${hybrid}`).toBe(ids.chess);
      expect(scoreOf(results, ids.chess)).toBeGreaterThan(scoreOf(results, ids.church));
      // The content is the reply alone.
      expect(results[0]?.content).toBe(REPLY);
    }
    const church = await search({ query: 'going to church on Sundays', hybrid: true });
    expect(church[0]?.id).toBe(ids.church);
  });

  it('is returned with the memory, and a PATCH changes or removes it (re-embedding)', async () => {
    const got = await t.request({ method: 'GET', url: `/v1/memory/${ids.chess}` });
    expect(got.json().data).toMatchObject({ content: REPLY, context: 'Do you still play chess with your father?' });

    const before = await search({ query: 'does he play chess with his dad' });
    const patched = await t.request({ method: 'PATCH', url: `/v1/memory/${ids.chess}`, payload: { context: '' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.context).toBeUndefined();
    const after = await search({ query: 'does he play chess with his dad' });
    expect(scoreOf(after, ids.chess)).toBeLessThan(scoreOf(before, ids.chess));

    const restored = await t.request({
      method: 'PATCH',
      url: `/v1/memory/${ids.chess}`,
      payload: { context: '  Do you still play chess with your father?  ' },
    });
    expect(restored.json().data.context).toBe('Do you still play chess with your father?');
    expect(scoreOf(await search({ query: 'does he play chess with his dad' }), ids.chess)).toBeCloseTo(scoreOf(before, ids.chess), 3);
  });

  it('counts a name the context mentions half, when hybrid search weighs the query\'s names', async () => {
    const twins: Record<string, string> = {};
    for (const [name, context] of [
      ['named', 'Have you been to Lisbon?'],
      ['other', 'Have you been to the opera?'],
    ] as const) {
      const saved = await t.request({ method: 'POST', url: '/v1/save', payload: { content: 'Twice, both times in the rain.', context, spaceId: 'trips' } });
      twins[name] = saved.json().documentId;
    }
    const missing = async (query: string) => {
      const response = await t.request({ method: 'POST', url: '/v1/search', payload: { query, spaceId: 'trips', threshold: 0, explain: true } });
      const results = response.json<{ results: { id: string; explanation: { features: { missingNames: number } } }[] }>().results;
      return (id: string | undefined) => results.find((result) => result.id === id)?.explanation.features.missingNames;
    };
    // A lower-case query has no names; capitalised, "Lisbon" is a name, which the context names at half weight.
    const plain = await missing('has she been to lisbon?');
    expect([plain(twins.named), plain(twins.other)]).toEqual([0, 0]);
    const named = await missing('Has she been to Lisbon?');
    expect([named(twins.named), named(twins.other)]).toEqual([0.5, 1]);
  });

  it('is kept by turbo and async saves', async () => {
    const turbo = await t.request({
      method: 'POST',
      url: '/v1/turbo/save',
      payload: { content: 'Twice, both in the rain.', context: 'Have you ever been to Lisbon?', spaceId: 'chat' },
    });
    expect(turbo.statusCode, turbo.body).toBe(201);
    const stored = await t.request({ method: 'GET', url: `/v1/memory/${turbo.json().documentId}` });
    expect(stored.json().data.context).toBe('Have you ever been to Lisbon?');

    const accepted = await t.request({
      method: 'POST',
      url: '/v1/save',
      payload: { content: 'Only on weekends.', context: 'When do you bake bread?', spaceId: 'chat', async: true },
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
    let documentId: string | undefined;
    for (let i = 0; i < 200 && !documentId; i++) {
      const status = await t.request({ method: 'GET', url: `/v1/save/status/${accepted.json().pendingId}` });
      documentId = status.json().documentId;
      if (!documentId) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const saved = await t.request({ method: 'GET', url: `/v1/memory/${documentId}` });
    expect(saved.json().data.context).toBe('When do you bake bread?');
  });

  it('rejects a context that is not text, too long, or sent with a URL, and stores nothing', async () => {
    const count = async () => (await t.request({ method: 'GET', url: '/v1/memories?limit=100' })).json().data.length;
    const before = await count();
    for (const payload of [
      { content: 'a reply', context: 42 },
      { content: 'a reply', context: 'x'.repeat(5001) },
      { url: 'https://example.org/page', context: 'the page it answers' },
    ]) {
      const response = await t.request({ method: 'POST', url: '/v1/save', payload });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR', message: expect.any(String) });
    }
    const patch = await t.request({ method: 'PATCH', url: `/v1/memory/${ids.church}`, payload: { context: ['no'] } });
    expect(patch.statusCode).toBe(400);
    expect(await count()).toBe(before);
    const church = await t.request({ method: 'GET', url: `/v1/memory/${ids.church}` });
    expect(church.json().data.context).toBe('Do you go to church with your family?');
  });

  it('leaves memories saved without one unchanged in every response', async () => {
    const plain = await t.request({ method: 'POST', url: '/v1/save', payload: { content: 'A note with no context at all.' } });
    const got = await t.request({ method: 'GET', url: `/v1/memory/${plain.json().documentId}` });
    expect(Object.keys(got.json().data)).not.toContain('context');
  });
});
