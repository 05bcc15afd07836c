import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { embedMany } from '../../src/providers/embed-many.js';
import { checkOllama, OllamaEmbeddingModel } from '../../src/providers/ollama/ollama-embedding-model.js';
import { fakeEmbedding, startFakeOllama, type FakeOllama, type FakeOllamaOptions } from '../helpers/fake-ollama.js';

let fake: FakeOllama | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(
  options: FakeOllamaOptions = {},
  model: Partial<ConstructorParameters<typeof OllamaEmbeddingModel>[0]> = {},
): Promise<{ server: FakeOllama; embedder: OllamaEmbeddingModel }> {
  const server = await startFakeOllama(options);
  fake = server;
  const embedder = new OllamaEmbeddingModel({ host: server.url, model: 'nomic-embed-text', timeoutMs: 5_000, ...model });
  return { server, embedder };
}

/** A port nothing listens on: bound once, then released. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${address.port}`;
}

async function failure(promise: Promise<unknown>): Promise<MemError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof MemError)) throw new Error(`expected a MemError, got ${String(error)}`);
  return error;
}

const norm = (vector: Float32Array) => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));

describe('OllamaEmbeddingModel', () => {
  it('names its vector space after the model', async () => {
    const { embedder } = await setup({}, { model: 'nomic-embed-text:latest' });
    expect(embedder.provider).toBe('ollama');
    expect(embedder.modelId).toBe('ollama/nomic-embed-text');
    expect(embedder.maxEmbeddingsPerCall).toBe(64);
  });

  it('learns the dimension in init()', async () => {
    const { server, embedder } = await setup({ dimension: 384 });
    expect(embedder.dimension).toBe(0);
    await embedder.init();
    expect(embedder.dimension).toBe(384);
    await embedder.init();
    expect(server.requests.filter((request) => request.route === 'embed')).toHaveLength(1);
  });

  it('embeds texts into L2-normalised Float32Arrays through the injected fetch', async () => {
    let fetches = 0;
    const countingFetch: typeof fetch = (input, init) => {
      fetches++;
      return fetch(input, init);
    };
    const { server, embedder } = await setup(
      { embed: (text) => [text.length, 2, 0, 0] },
      { fetch: countingFetch },
    );
    await embedder.init();
    const vectors = await embedder.doEmbed(['abcd', 'ab']);

    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(Array.from(vectors[0] ?? [])).toEqual([expect.closeTo(4 / Math.sqrt(20), 6), expect.closeTo(2 / Math.sqrt(20), 6), 0, 0]);
    for (const vector of vectors) expect(norm(vector)).toBeCloseTo(1, 5);
    expect(fetches).toBe(2);
    expect(server.requests.at(-1)?.body).toMatchObject({ model: 'nomic-embed-text', input: ['abcd', 'ab'] });
  });

  it('batches more than 64 texts through embedMany', async () => {
    const { server, embedder } = await setup();
    await embedder.init();
    const texts = Array.from({ length: 150 }, (_, i) => `note number ${i} about topic ${i % 7}`);
    const vectors = await embedMany(embedder, texts);

    expect(vectors).toHaveLength(150);
    const batches = server.requests.filter((request) => request.route === 'embed').slice(1);
    expect(batches.map((request) => request.body)).toMatchObject([
      { input: texts.slice(0, 64) },
      { input: texts.slice(64, 128) },
      { input: texts.slice(128) },
    ]);
    const expected = fakeEmbedding(texts[149] ?? '');
    expect(Array.from(vectors[149] ?? []).map((x, i) => x - (expected[i] ?? 0)).every((d) => Math.abs(d) < 1e-6)).toBe(true);
  });

  it('tells the user to pull a missing model', async () => {
    const { embedder } = await setup({ models: ['llama3.2'] });
    const error = await failure(embedder.init());
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain('ollama pull nomic-embed-text');
    expect(error.hint).toBe('ollama pull nomic-embed-text');
    expect(error.details).toMatchObject({ reason: 'model-missing', retryable: false });
    expect(embedder.dimension).toBe(0);
  });

  it('fails fast and retryably when nothing listens at the host', async () => {
    const host = await closedPortUrl();
    const embedder = new OllamaEmbeddingModel({ host, model: 'nomic-embed-text', timeoutMs: 10_000 });
    const started = performance.now();
    const error = await failure(embedder.init());

    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain(host);
    expect(error.message).toContain('ollama serve');
    expect(error.message).toContain('MEM_OLLAMA_HOST');
    expect(error.details).toMatchObject({ reason: 'unreachable', retryable: true });
  });

  it('times out a request that never answers within ollama.timeoutMs', async () => {
    const { server, embedder } = await setup({}, { timeoutMs: 300 });
    server.script.enqueue('embed', { kind: 'hang' });
    const started = performance.now();
    const error = await failure(embedder.init());
    const elapsed = performance.now() - started;

    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2_000);
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain('300 ms');
    expect(error.message).toContain('ollama.timeoutMs');
    expect(error.details).toMatchObject({ reason: 'timeout', retryable: true });

    // The failed probe does not stick: the next init() tries again.
    await embedder.init();
    expect(embedder.dimension).toBe(768);
  });

  it('reports a wrong-shaped response clearly', async () => {
    const { server, embedder } = await setup();
    server.script.enqueue(
      'embed',
      { kind: 'json', body: { embeddings: 'not vectors' } },
      { kind: 'json', body: { embeddings: [[0.1, 0.2]] } },
      { kind: 'raw', body: '<html>proxy error</html>', contentType: 'application/json' },
    );

    const shape = await failure(embedder.doEmbed(['a']));
    expect(shape.code).toBe('MODEL_UNAVAILABLE');
    expect(shape.message).toMatch(/unexpected \/api\/embed response.*embeddings/);
    expect(shape.details).toMatchObject({ reason: 'malformed', retryable: false });

    const count = await failure(embedder.doEmbed(['a', 'b']));
    expect(count.message).toContain('1 vectors came back for 2 texts');

    const notJson = await failure(embedder.doEmbed(['a']));
    expect(notJson.message).toContain('not JSON');
  });

  it("includes Ollama's error text for other HTTP errors", async () => {
    const { server, embedder } = await setup();
    server.script.enqueue('embed', { kind: 'error', status: 500, error: 'llama runner process has terminated' });
    const error = await failure(embedder.doEmbed(['a']));
    expect(error.message).toContain('HTTP 500: llama runner process has terminated');
    expect(error.details).toMatchObject({ reason: 'http', status: 500, retryable: true });
  });

  it("rethrows the caller's abort and aborts in-flight requests on close()", async () => {
    const { server, embedder } = await setup();
    await embedder.init();

    server.script.enqueue('embed', { kind: 'hang' });
    const controller = new AbortController();
    const cancelled = embedder.doEmbed(['a'], { signal: controller.signal }).catch((error: unknown) => error);
    await server.waitForRequests(2, 'embed');
    controller.abort(new Error('caller gave up'));
    expect(await cancelled).toMatchObject({ message: 'caller gave up' });

    server.script.enqueue('embed', { kind: 'hang' });
    const inFlight = failure(embedder.doEmbed(['b']));
    await server.waitForRequests(3, 'embed');
    await embedder.close();
    expect((await inFlight).message).toContain('shut down');
    expect((await failure(embedder.doEmbed(['c']))).message).toContain('shut down');
  });
});

describe('checkOllama', () => {
  it('lists installed models when Ollama answers', async () => {
    const server = await startFakeOllama({ models: ['nomic-embed-text', 'qwen2.5:7b'] });
    fake = server;
    expect(await checkOllama(server.url, 2_000)).toEqual({
      reachable: true,
      models: ['nomic-embed-text:latest', 'qwen2.5:7b'],
    });
  });

  it('reports an unreachable host without throwing', async () => {
    const host = await closedPortUrl();
    const status = await checkOllama(host, 2_000);
    expect(status.reachable).toBe(false);
    expect(status.models).toEqual([]);
    expect(status.error).toContain('ollama serve');
  });

  it('reports a host that answers too slowly as unreachable', async () => {
    const server = await startFakeOllama();
    fake = server;
    server.script.enqueue('tags', { kind: 'hang' });
    const status = await checkOllama(server.url, 200);
    expect(status).toMatchObject({ reachable: false, models: [], error: expect.stringContaining('ollama.timeoutMs') });
  });
});
