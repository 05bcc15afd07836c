import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Hybrid search ranks memories that mention the names a query spells with a capital above those that do
 * not (memory-service.ts NAME_PENALTY). Caroline is named in most of the notes, so BM25 gives her name
 * almost no weight.
 */
let t: TestApp;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp();
  const notes: Record<string, string> = {
    caroline: 'Caroline: I painted a sunrise over the lake last weekend.',
    melanie: 'Melanie: I painted a sunrise over the lake last weekend.',
  };
  const fillers = [
    'Caroline: The adoption agency called back today.',
    'Caroline: My mentor helped me with the speech at school.',
    'Caroline: I went to the support group on Tuesday.',
    'Caroline: Counseling is what I want to study.',
    'Caroline: We had a picnic with friends in June.',
    'Caroline: The necklace was a gift from my grandma.',
  ];
  for (const [name, content] of Object.entries(notes)) {
    const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content, spaceId: 'chat' } });
    ids[name] = response.json().documentId;
  }
  for (const content of fillers) await t.request({ method: 'POST', url: '/v1/save', payload: { content, spaceId: 'chat' } });
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

async function scores(query: string, hybrid: boolean): Promise<Map<string, number>> {
  const response = await t.request({ method: 'POST', url: '/v1/search', payload: { query, hybrid, spaceId: 'chat', threshold: 0, limit: 20 } });
  expect(response.statusCode, response.body).toBe(200);
  return new Map(response.json<{ results: { id: string; score: number }[] }>().results.map((result) => [result.id, result.score]));
}

describe('names in a hybrid query', () => {
  it('rank the memories that mention them above a twin that does not', async () => {
    const hybrid = await scores('What did Caroline paint at the lake?', true);
    const gap = (hybrid.get(ids.caroline ?? '') ?? 0) - (hybrid.get(ids.melanie ?? '') ?? 0);
    expect(gap).toBeGreaterThan(0);
    // The same question without a capitalised name names nobody: neither twin is missing a name (the score
    // may still differ by the keyword, which both questions share).
    const missing = async (query: string) => {
      const response = await t.request({ method: 'POST', url: '/v1/search', payload: { query, spaceId: 'chat', threshold: 0, limit: 20, explain: true } });
      const results = response.json<{ results: { id: string; explanation: { features: { missingNames: number } } }[] }>().results;
      return (id: string | undefined) => results.find((result) => result.id === id)?.explanation.features.missingNames;
    };
    const named = await missing('What did Caroline paint at the lake?');
    expect([named(ids.caroline), named(ids.melanie)]).toEqual([0, 1]);
    const unnamed = await missing('what did caroline paint at the lake?');
    expect([unnamed(ids.caroline), unnamed(ids.melanie)]).toEqual([0, 0]);
  });

  it('leave semantic search as it is', async () => {
    const semantic = await scores('What did Caroline paint at the lake?', false);
    expect(Math.abs((semantic.get(ids.caroline ?? '') ?? 0) - (semantic.get(ids.melanie ?? '') ?? 0))).toBeLessThan(0.1);
  });

  it('still page through the same ranking', async () => {
    const query = { query: 'What did Caroline paint at the lake?', hybrid: true, spaceId: 'chat', threshold: 0 };
    const all = (await t.request({ method: 'POST', url: '/v1/search', payload: { ...query, limit: 8 } })).json<{ results: { id: string }[] }>().results;
    const pages: string[] = [];
    for (let offset = 0; offset < 8; offset += 3) {
      const page = await t.request({ method: 'POST', url: '/v1/search', payload: { ...query, limit: 3, offset } });
      pages.push(...page.json<{ results: { id: string }[] }>().results.map((result) => result.id));
    }
    expect(pages).toEqual(all.map((result) => result.id));
    expect(all[0]?.id).toBe(ids.caroline);
  });
});
