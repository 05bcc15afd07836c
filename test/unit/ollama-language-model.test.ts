import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { answerPrompt, OllamaLanguageModel } from '../../src/providers/ollama/ollama-language-model.js';
import type { AnswerChunk, AnswerRequest } from '../../src/providers/spec.js';
import { startFakeOllama, type FakeOllama } from '../helpers/fake-ollama.js';

let fake: FakeOllama | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const MODELS = { fast: 'llama3.2:1b', default: 'llama3.2', smart: 'llama3.1:8b' };
const REQUEST: AnswerRequest = {
  question: 'When am I meeting Sarah?',
  tier: 'default',
  sources: [
    { id: 'mem_a', title: 'Meeting', content: 'Meeting Sarah Chen on Thursday at 10am.', relevance: 0.8, date: Date.parse('2026-03-02T09:00:00Z') },
    { id: 'mem_b', title: 'Dentist', content: 'Dentist on Tuesday.', relevance: 0.4, date: Date.parse('2026-03-01T09:00:00Z') },
  ],
};

async function setup(timeoutMs = 5_000, models: string[] = ['llama3.2', 'llama3.2:1b']) {
  fake = await startFakeOllama({ models });
  return { server: fake, model: new OllamaLanguageModel({ host: fake.url, models: MODELS, timeoutMs }) };
}

async function collect(iterable: AsyncIterable<AnswerChunk>): Promise<AnswerChunk[]> {
  const chunks: AnswerChunk[] = [];
  for await (const chunk of iterable) chunks.push(chunk);
  return chunks;
}

async function failure(promise: Promise<unknown>): Promise<MemError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof MemError)) throw new Error(`expected a MemError, got ${String(error)}`);
  return error;
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${address.port}`;
}

describe('OllamaLanguageModel', () => {
  it('streams /api/chat deltas, then usage from prompt_eval_count and eval_count, and the cited memories', async () => {
    const { server, model } = await setup();
    server.script.enqueue('chat', { kind: 'text', content: ['On Thursday', ' at 10am', ' [1].'] });
    const chunks = await collect(model.answer(REQUEST));
    expect(chunks.filter((c) => c.type === 'delta').map((c) => (c.type === 'delta' ? c.text : ''))).toEqual(['On Thursday', ' at 10am', ' [1].']);
    const finish = chunks.at(-1);
    expect(finish).toEqual({
      type: 'finish',
      usage: { promptTokens: expect.any(Number), completionTokens: 3 },
      model: 'ollama/llama3.2',
      cited: ['mem_a'],
    });
    const request = server.requests.find((r) => r.route === 'chat');
    const body = request?.body as { model: string; stream: boolean; messages: { role: string; content: string }[] };
    expect(body.model).toBe('llama3.2');
    expect(body.stream).toBe(true);
    expect(body.messages[0]?.role).toBe('system');
    expect(body.messages[1]?.content).toBe(answerPrompt(REQUEST));
    expect(body.messages[1]?.content).toContain('[1] (2026-03-02) Meeting Sarah Chen on Thursday at 10am.\n[2] (2026-03-01) Dentist on Tuesday.');
    // promptTokens is Ollama's prompt_eval_count (the fake counts the words of the last user message).
    expect(finish?.type === 'finish' && finish.usage.promptTokens).toBe(answerPrompt(REQUEST).split(/\s+/).filter(Boolean).length);
  });

  it('puts what a memory replies to beside it in the prompt, clipped', async () => {
    const { server, model } = await setup();
    server.script.enqueue('chat', { kind: 'text', content: ['Seven years [1].'] });
    const reply: AnswerRequest = {
      question: 'How long has Melanie been into art?',
      tier: 'default',
      sources: [
        { id: 'mem_r', title: '', content: 'Melanie: Seven years now!', relevance: 0.8, date: Date.parse('2023-05-08T09:00:00Z'), context: 'Caroline: How long have you been into art?' },
        { id: 'mem_l', title: '', content: 'Melanie: I love it.', relevance: 0.5, date: Date.parse('2023-05-08T09:00:00Z'), context: `Caroline: ${'so '.repeat(100)}long` },
      ],
    };
    await collect(model.answer(reply));
    const body = server.requests.find((r) => r.route === 'chat')?.body as { messages: { content: string }[] };
    expect(body.messages[1]?.content).toContain('[1] (2023-05-08) Melanie: Seven years now! (in reply to: Caroline: How long have you been into art?)');
    const second = body.messages[1]?.content.split('\n').find((line) => line.startsWith('[2]')) ?? '';
    expect(second).toMatch(/\(in reply to: Caroline: so so .*…\)$/u);
    expect(second.length).toBeLessThan(300);
  });

  it('maps the tiers to the configured models', async () => {
    const { server, model } = await setup();
    expect([model.modelFor('fast'), model.modelFor('default'), model.modelFor('smart')]).toEqual(['ollama/llama3.2:1b', 'ollama/llama3.2', 'ollama/llama3.1:8b']);
    await collect(model.answer({ ...REQUEST, tier: 'fast' }));
    expect((server.requests.find((r) => r.route === 'chat')?.body as { model: string }).model).toBe('llama3.2:1b');
  });

  it('a missing model is MODEL_UNAVAILABLE telling to ollama pull it, before any text', async () => {
    const { model } = await setup();
    const error = await failure(collect(model.answer({ ...REQUEST, tier: 'smart' })));
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain('ollama pull llama3.1:8b');
    expect(error.hint).toBe('ollama pull llama3.1:8b');
    expect(error.details).toMatchObject({ reason: 'model-missing' });
  });

  it('times out when Ollama does not answer, and when a stream stalls', async () => {
    const { server, model } = await setup(300);
    server.script.enqueue('chat', { kind: 'hang' });
    const hung = await failure(collect(model.answer(REQUEST)));
    expect(hung.code).toBe('MODEL_UNAVAILABLE');
    expect(hung.details).toMatchObject({ reason: 'timeout', timeoutMs: 300 });
    expect(hung.message).toContain('ollama.timeoutMs');

    server.script.enqueue('chat', {
      kind: 'ndjson',
      chunks: [{ model: 'llama3.2', created_at: '2025-01-01T00:00:00Z', message: { role: 'assistant', content: 'On' }, done: false }],
      hangAfter: true,
    });
    const seen: string[] = [];
    const stalled = await failure(
      (async () => {
        for await (const chunk of model.answer(REQUEST)) if (chunk.type === 'delta') seen.push(chunk.text);
      })(),
    );
    expect(seen).toEqual(['On']);
    expect(stalled.details).toMatchObject({ reason: 'timeout' });
  });

  it('an unreachable Ollama is MODEL_UNAVAILABLE naming ollama serve', async () => {
    const model = new OllamaLanguageModel({ host: await closedPortUrl(), models: MODELS, timeoutMs: 2000 });
    const error = await failure(collect(model.answer(REQUEST)));
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.details).toMatchObject({ reason: 'unreachable' });
    expect(error.message).toContain('ollama serve');
  });

  it('an Ollama error inside the stream becomes MODEL_UNAVAILABLE', async () => {
    const { server, model } = await setup();
    server.script.enqueue('chat', { kind: 'ndjson', chunks: [{ error: 'model runner has unexpectedly stopped' }] });
    const error = await failure(collect(model.answer(REQUEST)));
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain('unexpectedly stopped');
  });
});
