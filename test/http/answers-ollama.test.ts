import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../daemon/app.js';
import { createDeps, type CreatedDeps } from '../../daemon/create-deps.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startFakeOllama, type FakeOllama } from '../helpers/fake-ollama.js';
import { closeTestEmbedder, testEmbedder } from '../helpers/test-app.js';
import { tempHome } from '../helpers/temp-home.js';

/** The daemon with answer.provider=ollama, talking to the fake Ollama server (embeddings stay built-in). */
let fake: FakeOllama;
let app: FastifyInstance;
let deps: CreatedDeps;
let key: string;
const home = tempHome();
let memoryId: string;

function post(url: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${key}`, ...headers } });
}

beforeAll(async () => {
  fake = await startFakeOllama({ models: ['llama3.2', 'llama3.2:1b'] });
  const loaded = loadConfig({ env: { ...home.env, MEM_ANSWERER: 'ollama', MEM_OLLAMA_HOST: fake.url, MEM_OLLAMA_TIMEOUT_MS: '400' } });
  deps = await createDeps({ loaded, embedder: testEmbedder(), storeFirstKey: false });
  app = await buildApp(deps);
  await app.ready();
  key = deps.firstKey ?? (await deps.auth.createKey(deps.ownerId, { name: 'test', type: 'live' })).value;
  const saved = await post('/v1/save', { content: 'Meeting Sarah Chen from Acme Corp on Thursday at 10am to review the Q3 roadmap.' });
  memoryId = saved.json<{ documentId: string }>().documentId;
});

afterAll(async () => {
  await app.close();
  await deps.close();
  await fake.close();
  await closeTestEmbedder();
  home.remove();
});

describe('POST /v1/ask with answer.provider=ollama', () => {
  it('answers with the default model, tokensUsed from Ollama, citing the memory', async () => {
    fake.script.enqueue('chat', { kind: 'text', content: ['On Thursday at 10am,', ' to review the Q3 roadmap [1].'] });
    const response = await post('/v1/ask', { query: 'When am I meeting Sarah Chen?', includeContext: true });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      success: true,
      answer: 'On Thursday at 10am, to review the Q3 roadmap [1].',
      noResult: false,
      model: 'ollama/llama3.2',
      sources: [{ id: memoryId, title: expect.any(String) }],
      context: [{ id: memoryId, relevance: expect.any(Number) }],
    });
    const chat = fake.requests.filter((r) => r.route === 'chat').at(-1);
    const prompt = (chat?.body as { messages: { content: string }[] }).messages[1]?.content ?? '';
    expect(prompt).toContain('Meeting Sarah Chen from Acme Corp');
    expect(prompt).toContain('Question: When am I meeting Sarah Chen?');
    // tokensUsed = prompt_eval_count (the fake counts the prompt's words) + eval_count (2 pieces).
    expect(body.tokensUsed).toBe(prompt.split(/\s+/).filter(Boolean).length + 2);
    expect(body.confidence).toBeGreaterThan(0);
  });

  it('streams Ollama tokens as server-sent events', async () => {
    fake.script.enqueue('chat', { kind: 'text', content: ['On', ' Thursday', ' [1].'] });
    const response = await post('/v1/ask', { query: 'When am I meeting Sarah Chen?', model: 'fast' }, { accept: 'text/event-stream' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(/^event: delta\ndata: \{"text":"On"\}\n\nevent: delta\ndata: \{"text":" Thursday"\}\n\nevent: delta\ndata: \{"text":" \[1\]\."\}\n\nevent: done\ndata: /);
    const done = JSON.parse(/event: done\ndata: (.*)\n\n$/.exec(response.body)?.[1] ?? '{}') as Record<string, unknown>;
    expect(done).toMatchObject({ answer: 'On Thursday [1].', model: 'ollama/llama3.2:1b' });
    const chat = fake.requests.filter((r) => r.route === 'chat').at(-1);
    expect((chat?.body as { model: string }).model).toBe('llama3.2:1b');
  });

  it('a missing model is 503 MODEL_UNAVAILABLE with the ollama pull fix, as JSON even when streaming', async () => {
    for (const headers of [{}, { accept: 'text/event-stream' }] as Record<string, string>[]) {
      const response = await post('/v1/ask', { query: 'When am I meeting Sarah Chen?', model: 'smart' }, headers);
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/application\/json/);
      expect(response.json()).toMatchObject({
        success: false,
        error: 'MODEL_UNAVAILABLE',
        message: expect.stringContaining('ollama pull llama3.1:8b'),
        hint: 'ollama pull llama3.1:8b',
      });
    }
  });

  it('a hung Ollama times out with 503; a stall mid-stream ends the stream with an error event', async () => {
    fake.script.enqueue('chat', { kind: 'hang' });
    const hung = await post('/v1/ask', { query: 'When am I meeting Sarah Chen?' });
    expect(hung.statusCode).toBe(503);
    expect(hung.json()).toMatchObject({ error: 'MODEL_UNAVAILABLE', details: { reason: 'timeout' } });

    fake.script.enqueue('chat', {
      kind: 'ndjson',
      chunks: [{ model: 'llama3.2', created_at: '2025-01-01T00:00:00Z', message: { role: 'assistant', content: 'On' }, done: false }],
      hangAfter: true,
    });
    const stalled = await post('/v1/ask', { query: 'When am I meeting Sarah Chen?', stream: true });
    expect(stalled.statusCode).toBe(200);
    expect(stalled.body).toMatch(/^event: delta\ndata: \{"text":"On"\}\n\nevent: error\ndata: \{"success":false,"error":"MODEL_UNAVAILABLE"/);
  });

  it('turbo ask uses the fast model; nothing relevant never calls Ollama', async () => {
    fake.script.enqueue('chat', { kind: 'text', content: 'Thursday [1].' });
    const turbo = await post('/v1/turbo/ask', { query: 'When am I meeting Sarah Chen?' });
    expect(turbo.json()).toMatchObject({ answer: 'Thursday [1].', model: 'ollama/llama3.2:1b', processingTime: expect.any(Number) });
    const before = fake.requests.filter((r) => r.route === 'chat').length;
    const none = await post('/v1/ask', { query: 'quantum chromodynamics lattice gauge theory' });
    expect(none.json()).toMatchObject({ noResult: true });
    expect(fake.requests.filter((r) => r.route === 'chat').length).toBe(before);
  });
});

describe('answer.provider=ollama with Ollama not running', () => {
  it('the built-in answerer answers, and the response says so', async () => {
    const downHome = tempHome();
    // A port nothing listens on: connection refused, like an Ollama that is not started.
    const loaded = loadConfig({ env: { ...downHome.env, MEM_ANSWERER: 'ollama', MEM_OLLAMA_HOST: 'http://127.0.0.1:9', MEM_OLLAMA_TIMEOUT_MS: '2000' } });
    const downDeps = await createDeps({ loaded, embedder: testEmbedder(), storeFirstKey: false });
    const downApp = await buildApp(downDeps);
    try {
      const downKey = downDeps.firstKey ?? '';
      const headers = { authorization: `Bearer ${downKey}` };
      await downApp.inject({ method: 'POST', url: '/v1/save', headers, payload: { content: 'The Q3 roadmap review with Sarah Chen is on Thursday at 10am.' } });
      const response = await downApp.inject({ method: 'POST', url: '/v1/ask', headers, payload: { query: 'When is the roadmap review with Sarah?' } });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ success: true, noResult: false, model: 'builtin/extractive' });
      expect(response.json().answer).toMatch(/Thursday/);
    } finally {
      await downApp.close();
      await downDeps.close();
      downHome.remove();
    }
  });

  it('the prompt carries the matching facts with the memory that states each, next to the passages', async () => {
    const saved = await post('/v1/save', { content: 'Sarah Chen is the CFO of Acme Corp and signed off the budget.' });
    const factMemory = saved.json<{ documentId: string }>().documentId;
    fake.script.enqueue('chat', { kind: 'text', content: ['Sarah Chen [1].'] });
    const response = await post('/v1/ask', { query: 'Who is the CFO of Acme Corp?' });
    expect(response.statusCode, response.body).toBe(200);
    const chat = fake.requests.filter((r) => r.route === 'chat').at(-1);
    const prompt = (chat?.body as { messages: { content: string }[] }).messages[1]?.content ?? '';
    const number = /\[(\d+)\] \(\d{4}-\d{2}-\d{2}\) Sarah Chen is the CFO/.exec(prompt)?.[1];
    expect(number, prompt).toBeDefined();
    expect(prompt).toContain(`Known facts:\n- Sarah Chen is the CFO of Acme Corp (confidence 0.90, from [${number}])`);
    expect(prompt.indexOf('Known facts:')).toBeLessThan(prompt.indexOf('Memories:'));
    expect(response.json<{ sources: { id: string }[] }>().sources.map((source) => source.id)).toContain(factMemory);
  });

  it('with no matching fact the prompt has no facts section', async () => {
    fake.script.enqueue('chat', { kind: 'text', content: ['On Thursday [1].'] });
    const response = await post('/v1/ask', { query: 'When is the roadmap review?' });
    expect(response.statusCode, response.body).toBe(200);
    const chat = fake.requests.filter((r) => r.route === 'chat').at(-1);
    expect((chat?.body as { messages: { content: string }[] }).messages[1]?.content).not.toContain('Known facts');
  });
});
