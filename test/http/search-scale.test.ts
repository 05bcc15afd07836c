import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';
import { EVERYDAY_NOTES } from '../fixtures/everyday-notes.js';

/**
 * The behaviours of one score scale (issue #20), through the HTTP API with the built-in embedder and the
 * fitted search model: a default search (no `hybrid`, threshold 0.5) finds what the user typed and what
 * they meant, and returns nothing rather than noise.
 */
let t: TestApp;
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  for (const content of EVERYDAY_NOTES) {
    const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content } });
    expect(response.statusCode, response.body).toBe(201);
    ids.push(response.json().documentId);
  }
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

interface Result {
  id: string;
  score: number;
  content: string;
  explanation?: { matchedTerms: string[]; highlights: [number, number][]; similarity: number; keywordScore: number; features: Record<string, number>; logit: number; rank: number };
}

async function search(body: Record<string, unknown>): Promise<Result[]> {
  const response = await t.request({ method: 'POST', url: '/v1/search', payload: body });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ results: Result[] }>().results;
}

function idOf(fragment: string): string {
  const index = EVERYDAY_NOTES.findIndex((note) => note.includes(fragment));
  const id = ids[index];
  if (index < 0 || !id) throw new Error(`no note with ${fragment}`);
  return id;
}

describe('one score scale for every query shape', () => {
  it('a query of one to three words that a memory contains scores it >= 0.5 and ranks it first', async () => {
    const cases: [string, string][] = [
      ['Globex', 'Tom Baker joined Globex'],
      ['passport', 'renew the passport'],
      ['Porto', 'Team offsite in Porto'],
      ['boiler valve', 'boiler needs a new pressure valve'],
      ['brake pads', 'second-hand road bike'],
      ['football boots', 'new football boots'],
      ['tahini pomegranate', 'roasted cauliflower'],
      ['insurance renewal quote', 'car insurance renewal'],
      // Stemming: the memory says "dropping the connection".
      ['dropped connections', 'wifi router'],
    ];
    for (const [query, fragment] of cases) {
      const results = await search({ query });
      expect(results[0]?.id, `${query}: ${JSON.stringify(results.slice(0, 3))}`).toBe(idOf(fragment));
      expect(results[0]?.score, query).toBeGreaterThanOrEqual(0.5);
    }
  });

  it('a question whose words a note holds finds it at the default threshold', async () => {
    const results = await search({ query: 'Who is the CFO of Acme Corp?' });
    expect(results[0]?.id).toBe(idOf('CFO of Acme Corp'));
    expect(results[0]?.score).toBeGreaterThanOrEqual(0.5);
  });

  it('a word that no memory contains and that means nothing close returns nothing', async () => {
    for (const query of ['zorblattine', 'quixotrel', 'xylofrump']) {
      const results = await search({ query });
      expect(results, query).toEqual([]);
      // The nearest memories are still there, below the default threshold.
      expect((await search({ query, threshold: 0 })).length).toBeGreaterThan(0);
    }
  });

  // Paraphrases the search model was not fitted on (bench/fit-search.ts fits on EVERYDAY_PARAPHRASES), none
  // sharing a content word with its note. "When the embedder places them close" (issue #20): when meaning
  // alone ranks the note first, a default search keeps it in its top 3 at >= 0.5.
  it('a paraphrase with no shared content word finds its memory when the embedder places them close', async () => {
    const cases: [string, string][] = [
      ['tire puncture repair cost', 'flat tyre'],
      ['animal doctor wants my pet slimmer', 'cat should lose some weight'],
      ['someone to see about my teeth', 'Dentist appointment'],
      ['hot water tank part replacement', 'boiler needs a new pressure valve'],
      ['home internet cuts out late in the day', 'wifi router'],
      ['veggies and dairy to pick up', 'Grocery list'],
      ['identity document before the holiday abroad', 'renew the passport'],
      ['pictures safety copy', 'Backup the family photos'],
    ];
    let close = 0;
    const held: string[] = [];
    const missed: string[] = [];
    for (const [query, fragment] of cases) {
      const id = idOf(fragment);
      const all = await search({ query, threshold: 0 });
      const at = all.findIndex((result) => result.id === id);
      const shown = JSON.stringify(all.slice(0, 3).map((result) => [result.content, result.score]));
      // Whatever the embedder makes of it, the note ranks in the top 3.
      expect(at, `${query}: ${shown}`).toBeGreaterThanOrEqual(0);
      expect(at, `${query}: ${shown}`).toBeLessThan(3);
      const [nearest] = await search({ query, threshold: 0, hybrid: false });
      if (nearest?.id !== id) continue;
      close++;
      const kept = await search({ query });
      const found = kept.slice(0, 3).find((result) => result.id === id);
      if (found && found.score >= 0.5) held.push(query);
      else missed.push(`${query}: ${shown}`);
    }
    // Not every one: the model's estimate for a paraphrase is a probability. On held-out folds 62% of the
    // paraphrases' notes in a top 10 reach 0.5 among the forty notes (bench/README.md, "Search in small
    // collections"): measured against the search cohort as well, a note stands out less than against forty
    // notes alone, which is what keeps made-up words silent in small collections.
    expect(held.length, `not at >= 0.5 in the top 3: ${missed.join('; ')}`).toBeGreaterThanOrEqual(4);
    // Most of them are placed close: the condition above is not what makes the test pass.
    expect(close).toBeGreaterThanOrEqual(5);
  });

  it('hybrid is the default; hybrid false is meaning only', async () => {
    const byDefault = await search({ query: 'Globex', threshold: 0, explain: true });
    expect(byDefault[0]?.explanation?.matchedTerms).toEqual(['globex']);
    const semantic = await search({ query: 'Globex', threshold: 0, hybrid: false, explain: true });
    expect(semantic[0]?.explanation?.matchedTerms ?? []).toEqual([]);
    expect(semantic.find((result) => result.id === idOf('Globex'))?.score ?? 0).toBeLessThan(byDefault[0]?.score ?? 0);
  });

  it('explain gives the signals behind each score', async () => {
    const [top] = await search({ query: 'renew passport Lisbon', explain: true });
    expect(top?.explanation).toMatchObject({
      matchedTerms: ['renew', 'passport', 'lisbon'],
      similarity: expect.any(Number),
      keywordScore: expect.any(Number),
      logit: expect.any(Number),
    });
    expect(top?.explanation?.features).toMatchObject({ coverage: 1, allTerms: 1, phrase: 0 });
    expect(top?.explanation?.keywordScore).toBeGreaterThan(0);
    expect(top?.explanation).toMatchObject({ rank: 0, highlights: [[12, 17], [22, 30], [50, 56]] });
    // Without explain, no explanation.
    const [plain] = await search({ query: 'renew passport Lisbon' });
    expect(plain?.explanation).toBeUndefined();
  });

  it('a memory whose content is replaced is found by its new words at once', async () => {
    const id = idOf('Lost my umbrella');
    const patched = await t.request({
      method: 'PATCH',
      url: `/v1/memory/${id}`,
      payload: { content: 'Left the trombone case on the night bus.', title: 'Trombone case' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const results = await search({ query: 'trombone' });
    expect(results[0]?.id).toBe(id);
    expect(results[0]?.score).toBeGreaterThanOrEqual(0.5);
    // Its old words are gone from the keyword index (it may still be near in meaning: a bus and a tram).
    const old = (await search({ query: 'umbrella', threshold: 0, explain: true })).find((result) => result.id === id);
    expect(old?.explanation?.matchedTerms ?? []).toEqual([]);
  });

  it("remind's default 0.6 and ask's relevance sit on the search scale", async () => {
    const question = 'When is the dentist appointment?';
    const [top] = await search({ query: question });
    expect(top?.id).toBe(idOf('Dentist appointment'));
    const ask = await t.request({ method: 'POST', url: '/v1/ask', payload: { query: question, includeContext: true } });
    expect(ask.statusCode, ask.body).toBe(200);
    const context = ask.json<{ context: { id: string; relevance: number }[] }>().context;
    expect(context[0]?.id).toBe(top?.id);
    expect(context[0]?.relevance).toBeCloseTo(top?.score ?? 0, 2);
    const remind = await t.request({ method: 'POST', url: '/v1/remind', payload: { context: 'I should book the dentist appointment soon' } });
    expect(remind.statusCode, remind.body).toBe(200);
    const reminders = remind.json<{ reminders: { id: string; relevance: number }[] }>().reminders;
    expect(reminders.map((reminder) => reminder.id)).toContain(idOf('Dentist appointment'));
    for (const reminder of reminders) expect(reminder.relevance).toBeGreaterThanOrEqual(0.6);
  });
});

// The fitted data are collections of forty memories and more; a new user starts with a handful. How far a
// memory stands out in meaning is measured against a cohort of general texts as well as the account's own
// memories (src/core/search/cohort.ts), so the scale keeps its meaning with five memories and with one
// (bench/README.md, "Search in small collections").
describe('the same scale in a collection of a few memories', () => {
  let few: TestApp;
  let one: TestApp;
  const fewIds = new Map<string, string>();
  const FEW = ['CFO of Acme Corp', 'Tom Baker joined Globex', 'flat tyre', 'Lost my umbrella', 'Book club'];

  async function save(app: TestApp, content: string): Promise<string> {
    const response = await app.request({ method: 'POST', url: '/v1/save', payload: { content } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ documentId: string }>().documentId;
  }

  async function searchIn(app: TestApp, body: Record<string, unknown>): Promise<Result[]> {
    const response = await app.request({ method: 'POST', url: '/v1/search', payload: body });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ results: Result[] }>().results;
  }

  beforeAll(async () => {
    few = await createTestApp();
    for (const fragment of FEW) {
      const note = EVERYDAY_NOTES.find((candidate) => candidate.includes(fragment));
      if (!note) throw new Error(`no note with ${fragment}`);
      fewIds.set(fragment, await save(few, note));
    }
    one = await createTestApp();
    const note = EVERYDAY_NOTES.find((candidate) => candidate.includes('flat tyre'));
    if (!note) throw new Error('no flat tyre note');
    await save(one, note);
  });

  afterAll(async () => {
    await few?.close();
    await one?.close();
  });

  it('finds a word it holds, and nothing for made-up words, with five memories', async () => {
    const [top] = await searchIn(few, { query: 'Globex' });
    expect(top?.id).toBe(fewIds.get('Tom Baker joined Globex'));
    expect(top?.score).toBeGreaterThanOrEqual(0.5);
    for (const query of ['zorblattine', 'quixotrel', 'xylofrump']) expect(await searchIn(few, { query }), query).toEqual([]);
  });

  // The session issue #20 describes as a new user's: the query is among the paraphrases the calibration was
  // fitted on, and the embedder places the note only a little nearer than the umbrella's (0.458 against
  // 0.428), so this holds the fitted scale to the case a user reported rather than testing generalisation.
  it("finds the flat tyre for the issue's own words, and only it, with five memories", async () => {
    const results = await searchIn(few, { query: 'car wheel puncture' });
    expect(results.map((result) => result.id)).toEqual([fewIds.get('flat tyre')]);
  });

  it('finds a paraphrase it was not fitted on, and nothing else, with five memories', async () => {
    const results = await searchIn(few, { query: 'tire puncture repair cost' });
    expect(results.map((result) => result.id)).toEqual([fewIds.get('flat tyre')]);
  });

  it('finds a paraphrase with a single memory, and not a made-up word', async () => {
    const [top] = await searchIn(one, { query: 'tire puncture repair cost' });
    expect(top?.score).toBeGreaterThanOrEqual(0.5);
    expect(await searchIn(one, { query: 'zorblattine' })).toEqual([]);
  });
});
