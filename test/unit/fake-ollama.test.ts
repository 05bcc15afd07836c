import { Ollama } from 'ollama';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeEmbedding, startFakeOllama, type FakeOllama } from '../helpers/fake-ollama.js';

describe('fake Ollama, spoken to by the real ollama client', () => {
  let fake: FakeOllama;
  let client: Ollama;

  beforeEach(async () => {
    fake = await startFakeOllama();
    client = new Ollama({ host: fake.url });
  });

  afterEach(async () => {
    await fake.close();
  });

  it('streams chat as NDJSON chunks ending with done and eval counts', async () => {
    const stream = await client.chat({
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'hello there' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.length).toBeGreaterThan(2);
    const final = chunks.at(-1);
    expect(final?.done).toBe(true);
    expect(final?.done_reason).toBe('stop');
    expect(final?.eval_count).toBe(chunks.length - 1);
    expect(final?.prompt_eval_count).toBe(2);
    expect(chunks.slice(0, -1).every((chunk) => !chunk.done && chunk.message.role === 'assistant')).toBe(true);
    expect(chunks.map((chunk) => chunk.message.content).join('')).toBe('You said: hello there');
  });

  it('streams by default when the request omits stream, as Ollama does', async () => {
    const response = await fetch(`${fake.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await response.text()).trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(JSON.parse(lines.at(-1) ?? '{}')).toMatchObject({ done: true, done_reason: 'stop' });
  });

  it('answers generate without streaming as one object', async () => {
    const response = await client.generate({ model: 'llama3.2', prompt: 'why is the sky blue', stream: false });
    expect(response).toMatchObject({
      model: 'llama3.2',
      response: 'You said: why is the sky blue',
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 5,
    });
    expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: '/api/generate', route: 'generate' });
  });

  it('serves scripted text and scripted NDJSON chunks', async () => {
    fake.script.enqueue('generate', { kind: 'text', content: ['{"a"', ':1}'] });
    const stream = await client.generate({ model: 'llama3.2', prompt: 'json please', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.response ?? '';
    expect(text).toBe('{"a":1}');

    fake.script.enqueue('chat', {
      kind: 'ndjson',
      chunks: [
        { model: 'llama3.2', created_at: 'x', message: { role: 'assistant', content: 'one' }, done: false },
        { model: 'llama3.2', created_at: 'x', message: { role: 'assistant', content: '' }, done: true, eval_count: 1 },
      ],
    });
    const chat = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'x' }], stream: true });
    const contents = [];
    for await (const chunk of chat) contents.push(chunk.message.content);
    expect(contents).toEqual(['one', '']);
    expect(fake.script.pending('chat')).toBe(0);
  });

  it('lists installed models on /api/tags and reports its version', async () => {
    const { models } = await client.list();
    expect(models.map((model) => model.name)).toEqual(['nomic-embed-text:latest', 'llama3.2:latest']);
    expect(models[0]).toMatchObject({ model: 'nomic-embed-text:latest', details: { format: 'gguf' } });
    expect(typeof models[0]?.digest).toBe('string');
    expect(await client.version()).toEqual({ version: '0.12.0' });
  });

  it('embeds deterministically, similar texts closer than unrelated ones', async () => {
    const { embeddings } = await client.embed({
      model: 'nomic-embed-text',
      input: ['the cat sat on the mat', 'a cat sat on a mat', 'quarterly revenue forecast'],
    });
    expect(embeddings).toHaveLength(3);
    expect(embeddings[0]).toEqual(fakeEmbedding('the cat sat on the mat'));
    const [cat, kitten, revenue] = embeddings;
    const dot = (a: number[] = [], b: number[] = []) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);
    expect(cat).toHaveLength(768);
    expect(dot(cat, cat)).toBeCloseTo(1, 6);
    expect(dot(cat, kitten)).toBeGreaterThan(dot(cat, revenue) + 0.3);
  });

  it('surfaces a missing model as the client ResponseError with Ollama message', async () => {
    const failure = await client.chat({ model: 'mistral', messages: [{ role: 'user', content: 'x' }] }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({
      name: 'ResponseError',
      status_code: 404,
      message: 'model "mistral" not found, try pulling it first',
    });
    const raw = await fetch(`${fake.url}/api/embed`, {
      method: 'POST',
      body: JSON.stringify({ model: 'mistral', input: 'x' }),
    });
    expect(raw.status).toBe(404);
    expect(await raw.text()).toBe('{"error":"model \\"mistral\\" not found, try pulling it first"}');
  });

  it('rejects a malformed body with 400 and records it', async () => {
    const response = await fetch(`${fake.url}/api/embed`, { method: 'POST', body: '{not json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: expect.stringContaining('invalid') });
    expect(fake.requests.at(-1)).toMatchObject({ path: '/api/embed', body: undefined, rawBody: '{not json' });
  });

  it('close() ends promptly while a scripted hang holds a request open', async () => {
    fake.script.enqueue('tags', { kind: 'hang' });
    const pending = client.list().catch((error: unknown) => error);
    await fake.waitForRequests(1, 'tags');
    await fake.close();
    expect(await pending).toBeInstanceOf(Error);
    fake = await startFakeOllama();
  });
});
