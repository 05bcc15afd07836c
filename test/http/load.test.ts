import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BuiltinEmbeddingModel } from '../../src/providers/builtin/builtin-embedding-model.js';
import type { EmbeddingModel, EmbedOptions } from '../../src/providers/spec.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const json = (response: { body: string }) => JSON.parse(response.body) as Record<string, any>;

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

interface EmbedCall {
  readonly priority: string;
  readonly texts: number;
  /** Background texts already embedded when this call was made, and when it finished. */
  readonly backgroundDoneBefore: number;
  readonly backgroundQueuedBefore: number;
  backgroundDoneAfter: number;
}

/** The real built-in embedder, with every call's priority and place in the order of completion recorded. */
class RecordingEmbedder implements EmbeddingModel {
  readonly inner = new BuiltinEmbeddingModel(1);
  readonly provider = this.inner.provider;
  readonly modelId = this.inner.modelId;
  readonly dimension = this.inner.dimension;
  readonly maxEmbeddingsPerCall = this.inner.maxEmbeddingsPerCall;
  readonly calls: EmbedCall[] = [];
  backgroundDone = 0;

  init(): Promise<void> {
    return this.inner.init();
  }

  async doEmbed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const call: EmbedCall = {
      priority: options.priority ?? 'interactive',
      texts: texts.length,
      backgroundDoneBefore: this.backgroundDone,
      backgroundQueuedBefore: this.inner.load().queued.background,
      backgroundDoneAfter: -1,
    };
    this.calls.push(call);
    const vectors = await this.inner.doEmbed(texts, options);
    if (call.priority === 'background') this.backgroundDone += texts.length;
    call.backgroundDoneAfter = this.backgroundDone;
    return vectors;
  }

  load() {
    return this.inner.load();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('many clients at once: priorities, lanes and backpressure', () => {
  const embedder = new RecordingEmbedder();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      embedder,
      admissionLimits: {
        read: { concurrency: 4, maxQueued: 8 },
        search: { concurrency: 1, maxQueued: 1 },
        write: { concurrency: 4, maxQueued: 8 },
        bulk: { concurrency: 1, maxQueued: 2 },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await embedder.close();
  });

  it('a burst of background ingest does not starve a search: the search is embedded before the backlog', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ content: `Bulk note ${i}: the kite festival moved to the northern beach on day ${i % 9}.` }));
    const accepted = json(await t.request({ method: 'POST', url: '/v1/ingest', payload: { items, turbo: true } }));
    expect(accepted.jobId).toMatch(/^job_/);
    // The job's items are all waiting for the embedder: a backlog of background texts.
    await until(() => embedder.load().queued.background >= 50, 'a backlog of background texts');

    const search = await t.request({ method: 'POST', url: '/v1/search', payload: { query: 'where did the kite festival move?', threshold: 0 } });
    expect(search.statusCode).toBe(200);
    const call = embedder.calls.find((entry) => entry.priority === 'interactive' && entry.backgroundQueuedBefore >= 50);
    expect(call, 'the search embedded its query while the backlog waited').toBeDefined();
    // By order, not time: while the search waited, at most the batch in the worker's hands and one more
    // (8 texts each) finished; the rest of the backlog (at least 50 texts) waited behind the search.
    expect((call?.backgroundDoneAfter ?? 0) - (call?.backgroundDoneBefore ?? 0)).toBeLessThanOrEqual(16);

    await until(async () => json(await t.request({ method: 'GET', url: `/v1/ingest/status/${accepted.jobId}` })).status === 'completed', 'the job to complete');
    // Background work was not starved either: every item went in.
    const status = json(await t.request({ method: 'GET', url: `/v1/ingest/status/${accepted.jobId}` }));
    expect(status.progress).toMatchObject({ total: 100, completed: 100, failed: 0 });
    // And the ingest embedded at background priority.
    expect(embedder.calls.filter((entry) => entry.priority === 'background').reduce((sum, entry) => sum + entry.texts, 0)).toBeGreaterThanOrEqual(100);
  }, 120_000);

  it('a bulk job goes one batch at a time while an interactive request runs; bulk requests and progress polls do not count', async () => {
    const pace = t.deps.load.pace;
    const started = vi.spyOn(pace, 'interactiveStarted');
    try {
      // The wiring: a read and a search are interactive (and end when answered); an ingest request is not.
      expect((await t.request({ method: 'GET', url: '/v1/memories?limit=1' })).statusCode).toBe(200);
      expect((await t.request({ method: 'POST', url: '/v1/search', payload: { query: 'kites' } })).statusCode).toBe(200);
      expect(started).toHaveBeenCalledTimes(2);
      expect(pace.load().interactive).toBe(0);

      const ended = pace.interactiveStarted();
      const saveMany = vi.spyOn(t.deps.memories, 'saveMany');
      let most = 0;
      const watch = setInterval(() => (most = Math.max(most, pace.load().running)), 2);
      try {
        const items = Array.from({ length: 70 }, (_, i) => ({ content: `Paced note ${i}: the ferry timetable changes on day ${i % 7}.` }));
        const accepted = json(await t.request({ method: 'POST', url: '/v1/ingest', payload: { items, turbo: true } }));
        expect(started).toHaveBeenCalledTimes(3); // the test's own, not the ingest request
        // By order: while the request runs, the job's batch (70 items) goes in pieces of at most 32, one after
        // the other (with a rest between), not whole as when nobody waits (70 items running).
        const pieces = () => saveMany.mock.calls.map(([, inputs]) => inputs.length);
        await until(() => pieces().reduce((sum, size) => sum + size, 0) >= 70, 'every piece of the job saved while the request runs');
        expect(pace.load().allowed).toBe(32);
        expect(Math.max(...pieces())).toBe(32);
        expect(pieces().length).toBeGreaterThanOrEqual(3);
        expect(most).toBeLessThanOrEqual(32);
        ended();
        // Waited on in-process: a status poll over HTTP would itself be an interactive request.
        await t.deps.ingest.onIdle();
        const status = json(await t.request({ method: 'GET', url: `/v1/ingest/status/${accepted.jobId}` }));
        expect(status.progress).toMatchObject({ total: 70, completed: 70, failed: 0 });
      } finally {
        clearInterval(watch);
        saveMany.mockRestore();
      }
      // Progress polls watch background work: they do not slow it.
      expect(started).toHaveBeenCalledTimes(3);
      expect(pace.load()).toMatchObject({ running: 0, waiting: 0 });
    } finally {
      started.mockRestore();
    }
  }, 120_000);

  it('a full lane answers 429 RATE_LIMITED with Retry-After at once, while cheap reads still answer', async () => {
    // Take the search lane's only slot: searches and writes lend each other idle slots, so a search still
    // runs at once on an idle write slot.
    const held = await t.deps.load.admission.enter('search');
    expect((await t.request({ method: 'POST', url: '/v1/search', payload: { query: 'kites borrowed' } })).statusCode).toBe(200);
    expect(t.deps.load.admission.load().search).toMatchObject({ running: 1, queued: 0 });
    // Take the write lane's slots too, so the next search waits and the one after finds the queue full.
    const writes = await Promise.all([1, 2, 3, 4].map(() => t.deps.load.admission.enter('write')));
    const waiting = t.request({ method: 'POST', url: '/v1/search', payload: { query: 'kites' } });
    await until(() => t.deps.load.admission.load().search.queued === 1, 'a search waiting for the lane');

    const refused = await t.request({ method: 'POST', url: '/v1/search', payload: { query: 'kites again' } });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const body = json(refused);
    expect(body).toMatchObject({ success: false, error: 'RATE_LIMITED' });
    expect(body.retryAfter).toBe(Number(refused.headers['retry-after']));

    // A read goes through its own lane: it answers while the search still waits.
    const list = await t.request({ method: 'GET', url: '/v1/memories?limit=1' });
    expect(list.statusCode).toBe(200);
    expect(t.deps.load.admission.load().search.queued).toBe(1);

    held.release();
    for (const write of writes) write.release();
    expect((await waiting).statusCode).toBe(200);
    expect(t.deps.load.admission.load().search).toMatchObject({ running: 0, queued: 0 });
    expect(t.deps.load.admission.load().search.rejected).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('a bad request in a lane gives its slot back (validation fails before admission, errors after it)', async () => {
    const bad = await t.request({ method: 'POST', url: '/v1/search', payload: { query: 42 } });
    expect(bad.statusCode).toBe(400);
    const missing = await t.request({ method: 'GET', url: '/v1/memory/mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G' });
    expect(missing.statusCode).toBe(404);
    expect(t.deps.load.admission.load().read).toMatchObject({ running: 0, queued: 0 });
    expect(t.deps.load.admission.load().search).toMatchObject({ running: 0, queued: 0 });
  });

  it('GET /v1/status reports the load: lanes, request types queued vs working, embedder, commits, vector queries, search tables, CPU, event loop', async () => {
    // Two searches at once (the lane's one slot and its one place in the queue), so the window has some.
    const searches = await Promise.all(['kite festival', 'ferry timetable'].map((query) => t.request({ method: 'POST', url: '/v1/search', payload: { query } })));
    expect(searches.map((response) => response.statusCode)).toEqual([200, 200]);
    const status = json(await t.request({ method: 'GET', url: '/v1/status' }));
    const load = status.load;
    expect(load.windowSeconds).toBeGreaterThan(0);
    expect(load.eventLoop.delayP99Ms).toBeGreaterThanOrEqual(0);
    expect(load.cpu.process).toBeGreaterThanOrEqual(0);
    expect(load.lanes.search.rejected).toBeGreaterThanOrEqual(1);
    // The lanes' limits as this app set them.
    expect(load.lanes.search).toMatchObject({ concurrency: 1, maxQueued: 1 });
    expect(load.lanes.read).toMatchObject({ concurrency: 4, maxQueued: 8 });
    const search = load.requests.find((entry: { type: string }) => entry.type === 'POST /v1/search');
    expect(search.count).toBeGreaterThanOrEqual(2);
    expect(search.queuedMs.p99).toBeGreaterThan(0);
    expect(search.workingMs.p50).toBeGreaterThan(0);
    expect(load.embedder.workers).toBeGreaterThanOrEqual(1);
    expect(load.commits).not.toBeNull();
    expect(load.vectorSearches.queriesPerSecond).toBeGreaterThan(0);
    expect(load.vectorSearches.searchesPerSecond).toBeGreaterThanOrEqual(load.vectorSearches.queriesPerSecond);
    expect(load.vectorSearches.searchesPerQuery).toBeGreaterThanOrEqual(1);
    // A store this small has no vector index: its searches compare every passage.
    expect(load.searchTables).toMatchObject({ vectorIndexParts: null });
    expect(load.searchTables.pendingCommits).toBeGreaterThanOrEqual(0);
    expect(load.searchTables.compactingShare).toBeGreaterThanOrEqual(0);
  });
});
