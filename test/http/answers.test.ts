import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RESULT_ANSWER } from '../../src/core/answers/ask-service.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids: Record<string, string> = {};

const NOTES: Record<string, { content: string; tags?: string[]; spaceId?: string; title?: string }> = {
  meeting: {
    content: 'Meeting Sarah Chen from Acme Corp on Thursday at 10am in Berlin to review the Q3 roadmap and the pricing page.',
    tags: ['work', 'acme'],
    spaceId: 'work',
  },
  dentist: { content: 'Dentist appointment on Tuesday at 9am with Dr. Alvarez. Remember to floss.', tags: ['health'], spaceId: 'personal' },
  recipe: {
    content: "Grandma's lasagna recipe: layer pasta, ricotta, tomato sauce and mozzarella. Bake it for 45 minutes at 180 degrees.",
    tags: ['food'],
    spaceId: 'personal',
  },
  invoice: { content: 'Invoice 4471 from Globex is due on Friday; pay it by bank transfer.', tags: ['work', 'finance'], spaceId: 'work' },
  review: {
    content: 'Quarterly review prep: Acme Corp wants the churn numbers and a forecast for the next quarter.',
    tags: ['work', 'acme'],
    spaceId: 'work',
    title: 'Quarterly review prep',
  },
};

async function post(url: string, payload: unknown, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url, payload: payload as Record<string, unknown>, headers });
}

interface AskJson {
  success: boolean;
  answer: string;
  confidence: number;
  tokensUsed: number;
  noResult: boolean;
  suggestion?: string;
  context?: { id: string; content: string; title: string; relevance: number }[];
  sources: { id: string; title: string }[];
  model: string;
}

async function ask(payload: Record<string, unknown>): Promise<AskJson> {
  const response = await post('/v1/ask', payload);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<AskJson>();
}

/** Parses a text/event-stream body into its events. */
function events(body: string): { event: string; data: unknown }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
      return { event, data: JSON.parse(data) as unknown };
    });
}

beforeAll(async () => {
  t = await createTestApp();
  for (const [name, note] of Object.entries(NOTES)) {
    const response = await post('/v1/save', note);
    expect(response.statusCode, response.body).toBe(201);
    ids[name] = response.json<{ documentId: string }>().documentId;
  }
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
});

describe('POST /v1/ask', () => {
  it('answers from the memories with the spec fields, citing them', async () => {
    const body = await ask({ query: 'When am I meeting Sarah Chen and what about?' });
    expect(body).toEqual({
      success: true,
      answer: expect.any(String),
      confidence: expect.any(Number),
      tokensUsed: expect.any(Number),
      noResult: false,
      sources: [{ id: ids.meeting, title: expect.any(String) }],
      model: 'builtin/extractive',
    });
    // A "when" question leads with the date ("on Thursday" in a note without a past tense: the Thursday after
    // the day it was saved), then the sentence as written (names and dates intact).
    expect(body.answer).toMatch(/^Thursday \d{1,2} [A-Z][a-z]+ \d{4} — Meeting Sarah Chen from Acme Corp on Thursday at 10am in Berlin/);
    // Calibrated on LoCoMo-dev (answer-parameters.ts): a passage answer is rarely sure; never 0 when given.
    expect(body.confidence).toBeGreaterThan(0);
    expect(body.confidence).toBeLessThanOrEqual(1);
    expect(body.tokensUsed).toBeGreaterThan(20);
  });

  it('answers with the phrase that answers, from the right memory', async () => {
    const body = await ask({ query: 'How long do I bake the lasagna?', model: 'fast' });
    expect(body.answer).toBe('45 minutes');
    expect(body.sources.map((source) => source.id)).toEqual([ids.recipe]);
  });

  it('includeContext returns the retrieved memories, best first, honouring limit', async () => {
    const body = await ask({ query: 'Acme Corp: roadmap, pricing, churn numbers and the quarterly review', includeContext: true });
    expect(body.context?.length).toBeGreaterThanOrEqual(2);
    for (const item of body.context ?? []) {
      expect(Object.keys(item).sort()).toEqual(['content', 'id', 'relevance', 'title']);
      expect(item.relevance).toBeGreaterThanOrEqual(0.5);
      expect(item.relevance).toBeLessThanOrEqual(1);
    }
    const relevance = (body.context ?? []).map((item) => item.relevance);
    expect(relevance).toEqual([...relevance].sort((a, b) => b - a));
    expect((body.context ?? []).map((item) => item.id)).toEqual(expect.arrayContaining([ids.meeting, ids.review]));
    const one = await ask({ query: 'Acme Corp: roadmap, pricing, churn numbers and the quarterly review', includeContext: true, limit: 1 });
    expect(one.context).toHaveLength(1);
  });

  it('honours spaceId and the tags, after and before filters', async () => {
    const work = await ask({ query: 'appointment with the dentist', spaceId: 'work', includeContext: true });
    for (const item of work.context ?? []) expect([ids.meeting, ids.invoice, ids.review]).toContain(item.id);
    const tagged = await ask({ query: 'Globex invoice bank transfer', filters: { tags: ['finance'] }, includeContext: true });
    expect((tagged.context ?? []).map((item) => item.id)).toEqual([ids.invoice]);
    const today = new Date().toISOString().slice(0, 10);
    const dated = await ask({ query: 'Globex invoice bank transfer', filters: { after: today, before: today } });
    expect(dated.noResult).toBe(false);
    const future = await ask({ query: 'Globex invoice bank transfer', filters: { after: '2999-01-01' } });
    expect(future.noResult).toBe(true);
    const past = await ask({ query: 'Globex invoice bank transfer', filters: { before: '2000-01-01' } });
    expect(past.noResult).toBe(true);
  });

  it('says so when nothing relevant is found: noResult, the fixed answer and a suggestion', async () => {
    const body = await ask({ query: 'What is the airspeed velocity of an unladen swallow?', filters: { after: '2999-01-01' }, includeContext: true });
    expect(body).toEqual({
      success: true,
      answer: NO_RESULT_ANSWER,
      confidence: 0,
      tokensUsed: 0,
      noResult: true,
      suggestion: expect.stringMatching(/filters/),
      context: [],
      sources: [],
      model: 'builtin/extractive',
    });
    const unfiltered = await ask({ query: 'quantum chromodynamics lattice gauge theory' });
    expect(unfiltered.noResult).toBe(true);
    expect(unfiltered.suggestion).toMatch(/mem save/);
  });

  it.each([
    [{}, /query is required/],
    [{ query: '' }, /query must not be empty/],
    [{ query: '   ' }, /query must not be empty/],
    [{ query: 'x'.repeat(1001) }, /at most 1000 characters/],
    [{ query: 'x', model: 'genius' }, /model must be one of default, fast, smart/],
    [{ query: 'x', limit: 0 }, /limit must be between 1 and 100/],
    [{ query: 'x', limit: 101 }, /limit must be between 1 and 100/],
    [{ query: 'x', filters: { colour: 'red' } }, /filters/],
    [{ query: 'x', filters: { after: 'yesterday' } }, /filters\.after/],
  ])('answers VALIDATION_ERROR (%#)', async (payload, message) => {
    const response = await post('/v1/ask', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR', message: expect.stringMatching(message) });
  });

  it('accepts a query of exactly 1000 characters', async () => {
    const response = await post('/v1/ask', { query: `${'lasagna '.repeat(124)}pasta`.padEnd(1000, 'x') });
    expect(response.statusCode, response.body).toBe(200);
  });

  it('streams server-sent events ending with the same JSON as the plain response', async () => {
    const payload = { query: 'When am I meeting Sarah Chen and what about?', includeContext: true };
    const plain = await ask(payload);
    for (const [extra, headers] of [
      [{}, { accept: 'text/event-stream' }],
      [{ stream: true }, {}],
    ] as const) {
      const response = await post('/v1/ask', { ...payload, ...extra }, headers);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
      const list = events(response.body);
      const deltas = list.filter((e) => e.event === 'delta');
      expect(deltas.length).toBeGreaterThan(1);
      expect(list.at(-1)?.event).toBe('done');
      expect(list.at(-1)?.data).toEqual(plain);
      expect(deltas.map((e) => (e.data as { text: string }).text).join('')).toBe(plain.answer);
    }
  });

  it('streams noResult too, and errors before streaming keep the JSON envelope', async () => {
    const empty = await post('/v1/ask', { query: 'unladen swallow', filters: { after: '2999-01-01' } }, { accept: 'text/event-stream' });
    const list = events(empty.body);
    expect(list.map((e) => e.event)).toEqual(['delta', 'done']);
    expect(list[1]?.data).toMatchObject({ noResult: true, answer: NO_RESULT_ANSWER });

    const bad = await post('/v1/ask', { query: '' }, { accept: 'text/event-stream' });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/application\/json/);
    expect(bad.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR' });
  });

  it('needs a key', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/ask', payload: { query: 'x' } });
    expect(response.statusCode).toBe(401);
  });
});

describe('POST /v1/remind', () => {
  interface RemindJson {
    success: boolean;
    reminders: { id: string; title: string; content: string; relevance: number; reason: string; createdAt: string }[];
    totalFound: number;
  }
  async function remind(payload: Record<string, unknown>): Promise<RemindJson> {
    const response = await post('/v1/remind', payload);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<RemindJson>();
  }

  it('returns relevant memories with the spec fields and an evidence-based reason', async () => {
    const body = await remind({ context: 'Preparing the quarterly review with Sarah Chen from Acme Corp' });
    expect(body.success).toBe(true);
    expect(body.reminders.length).toBeGreaterThan(0);
    expect(body.totalFound).toBeGreaterThanOrEqual(body.reminders.length);
    for (const reminder of body.reminders) {
      expect(Object.keys(reminder).sort()).toEqual(['content', 'createdAt', 'id', 'reason', 'relevance', 'title']);
      expect(reminder.relevance).toBeGreaterThanOrEqual(0.6);
      expect(Date.parse(reminder.createdAt)).not.toBeNaN();
    }
    const meeting = body.reminders.find((reminder) => reminder.id === ids.meeting);
    expect(meeting?.reason).toMatch(/^Mentions (Sarah Chen and Acme Corp|Acme Corp and Sarah Chen), also named in your context; coming up this week \(on Thursday\)\.$/);
    const review = body.reminders.find((reminder) => reminder.id === ids.review);
    expect(review?.reason).toMatch(/^Mentions Acme Corp, also named in your context; same topic: "quarterly"( and "review")?/);
    // Reasons are built from evidence, so two memories never share a canned one.
    expect(new Set(body.reminders.map((reminder) => reminder.reason)).size).toBe(body.reminders.length);
  });

  it('gives the due date as the reason when the memory has one', async () => {
    const body = await remind({ context: 'Paying the Globex invoice this week', threshold: 0.3 });
    const invoice = body.reminders.find((reminder) => reminder.id === ids.invoice);
    expect(invoice?.reason).toMatch(/^Mentions Globex, .*; due this week\.$/);
    expect(invoice?.content).toBe(NOTES.invoice?.content);
  });

  it('honours limit, threshold and timeframe', async () => {
    const one = await remind({ context: 'Acme Corp roadmap and quarterly review', limit: 1, threshold: 0 });
    expect(one.reminders).toHaveLength(1);
    expect(one.totalFound).toBe(5);
    const strict = await remind({ context: 'Acme Corp roadmap and quarterly review', threshold: 0.99 });
    for (const reminder of strict.reminders) expect(reminder.relevance).toBeGreaterThanOrEqual(0.99);
    for (const timeframe of ['today', 'week', 'month', 'all']) {
      const body = await remind({ context: 'Acme Corp roadmap and quarterly review', threshold: 0, timeframe });
      expect(body.totalFound, timeframe).toBe(5);
    }
  });

  it.each([
    [{}, /context is required/],
    [{ context: 'too short' }, /at least 10 characters/],
    [{ context: 'long enough context', timeframe: 'year' }, /timeframe must be one of today, week, month, all/],
    [{ context: 'long enough context', threshold: 1.5 }, /threshold must be between 0 and 1/],
    [{ context: 'long enough context', limit: 0 }, /limit must be between 1 and 100/],
  ])('answers VALIDATION_ERROR (%#)', async (payload, message) => {
    const response = await post('/v1/remind', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR', message: expect.stringMatching(message) });
  });
});

describe('turbo', () => {
  it('POST /v1/turbo/save stores and embeds, with processingTime in ms', async () => {
    const response = await post('/v1/turbo/save', { content: 'Quick thought: try a standing desk for the home office.', title: 'Desk idea', tags: ['home'] });
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json<{ success: boolean; documentId: string; processingTime: number }>();
    expect(body).toEqual({ success: true, documentId: expect.stringMatching(/^mem_/), processingTime: expect.any(Number) });
    expect(body.processingTime).toBeGreaterThan(0);
    expect(body.processingTime).toBeLessThan(10_000);
    const stored = await t.request({ method: 'GET', url: `/v1/memory/${body.documentId}` });
    expect(stored.json()).toMatchObject({ data: { title: 'Desk idea', tags: ['home'] } });
    // Stored and embedded: found by meaning straight away.
    const found = await post('/v1/search', { query: 'standing desk at home', threshold: 0 });
    expect(found.json<{ results: { id: string }[] }>().results[0]?.id).toBe(body.documentId);
  });

  it('POST /v1/turbo/ask answers on the fast path with processingTime', async () => {
    const response = await post('/v1/turbo/ask', { query: 'what was that quick thought about the desk?' });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<{ answer: string; processingTime: number; sources: { id: string }[]; model: string; noResult: boolean }>();
    expect(body).toMatchObject({ success: true, answer: expect.stringContaining('standing desk'), processingTime: expect.any(Number), model: 'builtin/extractive', noResult: false });
    expect(body.processingTime).toBeGreaterThan(0);
  });

  it.each([
    ['/v1/turbo/save', {}, 400, /content is required/],
    ['/v1/turbo/save', { content: '   ' }, 400, /content must not be empty/],
    ['/v1/turbo/save', { content: 'x'.repeat(102_401) }, 413, /100 KB/],
    ['/v1/turbo/ask', {}, 400, /query is required/],
    ['/v1/turbo/ask', { query: 'x', limit: 500 }, 400, /limit/],
  ])('%s answers %i (%#)', async (url, payload, status, message) => {
    const response = await post(url, payload);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toMatchObject({ success: false, message: expect.stringMatching(message) });
  });
});
