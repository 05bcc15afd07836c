import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OllamaEmbeddingModel } from '../../src/providers/ollama/ollama-embedding-model.js';
import { startFakeOllama, type FakeOllama } from '../helpers/fake-ollama.js';
import { tempHome } from '../helpers/temp-home.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

let ollama: FakeOllama;

beforeAll(async () => {
  ollama = await startFakeOllama();
});

afterAll(async () => {
  await ollama.close();
  await closeTestEmbedder();
});

async function waitForJob(t: TestApp, jobId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = (await t.request({ method: 'GET', url: `/v1/jobs/${jobId}` })).json();
    if (job.status === 'completed' || job.status === 'failed' || Date.now() > deadline) return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('GET /v1/status', () => {
  it('reports version, counts, models and Ollama reachability', async () => {
    const t = await createTestApp();
    try {
      await t.request({ method: 'POST', url: '/v1/save', payload: { content: 'status check note' } });
      const status = (await t.request({ method: 'GET', url: '/v1/status' })).json();
      expect(status).toMatchObject({
        success: true,
        version: expect.any(String),
        pid: process.pid,
        memoryCount: 1,
        models: { embedding: { provider: 'builtin', model: 'builtin/use-lite', dimension: 512 } },
        ollama: { reachable: expect.any(Boolean) },
        vectors: { missing: 0 },
      });
      // Concurrent searches: each counted once, in vector queries that may each answer several of them.
      const searches = await Promise.all(
        ['status', 'check', 'note', 'notes on status', 'a check', 'the note', 'status note', 'check note'].map((query) =>
          t.request({ method: 'POST', url: '/v1/search', payload: { query, threshold: 0 } }),
        ),
      );
      expect(searches.map((response) => response.statusCode)).toEqual(searches.map(() => 200));
      const after = (await t.request({ method: 'GET', url: '/v1/status' })).json();
      const vector = after.load.vectorSearches;
      expect(vector.queriesPerSecond).toBeGreaterThan(0);
      expect(vector.searchesPerSecond).toBeGreaterThanOrEqual(vector.queriesPerSecond);
      expect(vector.searchesPerQuery).toBeGreaterThanOrEqual(1);
    } finally {
      await t.close();
    }
  });
});

describe('switching embedding models', () => {
  it('never mixes vector spaces; reindex moves memories into the new one', async () => {
    const home = tempHome();
    const builtin = await createTestApp({ home, keepHome: true });
    const saved: string[] = [];
    for (const content of ['Berlin trip with Sarah', 'Invoice from Globex', 'Lasagna recipe']) {
      saved.push((await builtin.request({ method: 'POST', url: '/v1/save', payload: { content } })).json().documentId);
    }
    const key = builtin.key;
    await builtin.close();

    const embedder = new OllamaEmbeddingModel({ host: ollama.url, model: 'nomic-embed-text', timeoutMs: 5000 });
    const switched = await createTestApp({ home, embedder });
    try {
      const headers = { authorization: `Bearer ${key}` };
      const status = (await switched.request({ method: 'GET', url: '/v1/status', headers })).json();
      expect(status.models.embedding).toEqual({ provider: 'ollama', model: 'ollama/nomic-embed-text', dimension: 768 });
      expect(status.vectors.missing).toBe(3);
      const before = (await switched.request({ method: 'POST', url: '/v1/search', headers, payload: { query: 'Globex invoice', threshold: 0 } })).json();
      expect(before.results).toEqual([]);

      const started = await switched.request({ method: 'POST', url: '/v1/reindex', headers, payload: {} });
      expect(started.statusCode).toBe(201);
      expect(started.json()).toMatchObject({ total: 3, jobId: expect.stringMatching(/^job_/) });
      const job = await waitForJob(switched, started.json().jobId);
      expect(job).toMatchObject({ status: 'completed', progress: { total: 3, completed: 3, failed: 0, percentage: 100 } });

      const after = (await switched.request({ method: 'POST', url: '/v1/search', headers, payload: { query: 'Globex invoice', threshold: 0 } })).json();
      expect(after.results[0]?.id).toBe(saved[1]);
      expect(ollama.requests.some((request) => request.route === 'embed')).toBe(true);
      const nothing = (await switched.request({ method: 'POST', url: '/v1/reindex', headers, payload: {} })).json();
      expect(nothing.total).toBe(0);
      const embedsBefore = ollama.requests.filter((request) => request.route === 'embed').length;
      const all = (await switched.request({ method: 'POST', url: '/v1/reindex', headers, payload: { all: true } })).json();
      expect(all.total).toBe(3);
      expect(await waitForJob(switched, all.jobId)).toMatchObject({ status: 'completed', progress: { completed: 3 } });
      expect(ollama.requests.filter((request) => request.route === 'embed').length).toBeGreaterThan(embedsBefore);
    } finally {
      await switched.close();
    }
  });

  it('gives 404 for unknown jobs', async () => {
    const t = await createTestApp();
    try {
      const response = await t.request({ method: 'GET', url: '/v1/jobs/job_nope' });
      expect(response.statusCode).toBe(404);
      expect(response.json().error).toBe('NOT_FOUND');
    } finally {
      await t.close();
    }
  });
});

describe('Ollama embedder failures surface as MODEL_UNAVAILABLE, not 500s', () => {
  it('a model that disappears gives 503 with the fix', async () => {
    const fake = await startFakeOllama();
    const embedder = new OllamaEmbeddingModel({ host: fake.url, model: 'nomic-embed-text', timeoutMs: 2000 });
    const t = await createTestApp({ embedder });
    try {
      fake.script.enqueue('embed', { kind: 'error', status: 404, error: 'model "nomic-embed-text" not found, try pulling it first' });
      const response = await t.request({ method: 'POST', url: '/v1/save', payload: { content: 'will fail' } });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ success: false, error: 'MODEL_UNAVAILABLE', message: expect.stringContaining('ollama pull nomic-embed-text') });
      expect((await t.request({ method: 'GET', url: '/v1/memories' })).json().pagination.total).toBe(0);
      // The memory row commits while the passages are embedded: a failed embedding takes it back.
      fake.script.enqueue('embed', { kind: 'error', status: 404, error: 'model "nomic-embed-text" not found, try pulling it first' });
      const turbo = await t.request({ method: 'POST', url: '/v1/turbo/save', payload: { content: 'will fail too' } });
      expect(turbo.statusCode).toBe(503);
      expect((await t.request({ method: 'GET', url: '/v1/memories' })).json().pagination.total).toBe(0);
      const saved = await t.request({ method: 'POST', url: '/v1/turbo/save', payload: { content: 'works again' } });
      expect(saved.statusCode, saved.body).toBe(201);
      const listed = (await t.request({ method: 'GET', url: '/v1/memories' })).json();
      expect(listed.data.map((memory: { id: string }) => memory.id)).toEqual([saved.json().documentId]);
    } finally {
      await t.close();
      await fake.close();
    }
  });
});
