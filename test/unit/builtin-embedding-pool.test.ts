import { afterAll, describe, expect, it } from 'vitest';
import { BuiltinEmbeddingModel } from '../../src/providers/builtin/builtin-embedding-model.js';

const texts = Array.from({ length: 160 }, (_, i) => `note ${i}: met Sarah about the roadmap, then booked a train to Lisbon for day ${i % 7}`);

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
}

describe('built-in embedder worker pool', () => {
  const pool = new BuiltinEmbeddingModel(2, { idleMs: 200 });
  afterAll(() => pool.close());

  it('runs one worker at rest, grows under a backlog, and shrinks back when idle', async () => {
    await pool.init();
    expect(pool.workers).toBe(1);
    const single = await pool.doEmbed(texts.slice(0, 4));

    let most = pool.workers;
    const watch = setInterval(() => (most = Math.max(most, pool.workers)), 5);
    const vectors = await pool.doEmbed(texts);
    clearInterval(watch);
    expect(most).toBe(2);
    expect(vectors).toHaveLength(texts.length);
    // The same text gives the same vector whichever worker embedded it.
    for (let i = 0; i < 4; i++) expect(cosine(vectors[i] as Float32Array, single[i] as Float32Array)).toBeCloseTo(1, 5);

    const deadline = Date.now() + 10_000;
    while (pool.workers > 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pool.workers).toBe(1);
    // The pool still embeds after the extra worker has gone, and grows again on demand.
    const again = await pool.doEmbed(texts.slice(0, 2));
    expect(cosine(again[0] as Float32Array, single[0] as Float32Array)).toBeCloseTo(1, 5);
  }, 60_000);

  it('never grows past its maximum', async () => {
    const one = new BuiltinEmbeddingModel(1);
    try {
      await one.init();
      let most = one.workers;
      const watch = setInterval(() => (most = Math.max(most, one.workers)), 5);
      await one.doEmbed(texts.slice(0, 80));
      clearInterval(watch);
      expect(most).toBe(1);
    } finally {
      await one.close();
    }
  }, 60_000);

  it('serves interactive texts before a backlog of background ones (by order of completion)', async () => {
    const one = new BuiltinEmbeddingModel(1);
    try {
      await one.init();
      const finished: string[] = [];
      const background = texts.slice(0, 120).map((text, i) =>
        one.doEmbed([text], { priority: 'background' }).then(() => finished.push(`background ${i}`)),
      );
      // Queued after the whole backlog: FIFO would finish it last.
      const interactive = one.doEmbed(['what did Sarah say about the roadmap?'], { priority: 'interactive' }).then(() => finished.push('interactive'));
      expect(one.load().queued.interactive + one.load().queued.background).toBeGreaterThan(100);
      await Promise.all([...background, interactive]);
      // At most the background batch the worker held when it arrived, and the next, went before it.
      expect(finished.indexOf('interactive')).toBeLessThanOrEqual(16);
      expect(finished).toHaveLength(121);
      const load = one.load();
      expect(load.texts).toBe(121);
      expect(load.batches).toBeGreaterThanOrEqual(120 / 8);
    } finally {
      await one.close();
    }
  }, 60_000);

  it('keeps one of two workers free of background batches while interactive texts arrive, and uses both again after', async () => {
    const two = new BuiltinEmbeddingModel(2);
    try {
      await two.init();
      // A backlog grows the pool to two workers.
      await two.doEmbed(texts, { priority: 'background' });
      expect(two.workers).toBe(2);

      await two.doEmbed(['who is travelling to Lisbon?'], { priority: 'interactive' });
      let most = 0;
      const watch = setInterval(() => (most = Math.max(most, two.busy().background)), 2);
      const backlog = two.doEmbed(texts, { priority: 'background' });
      // Within the reserve (300 ms after the interactive text), by its state: one worker, never two.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(most).toBe(1);
      expect(two.busy().interactive).toBe(0);
      // A query now finds a worker free: it is not queued behind the backlog's batches.
      const before = two.load().queued.background;
      const query = two.doEmbed(['what did Sarah say about the roadmap?'], { priority: 'interactive' });
      expect(two.busy().interactive).toBe(1);
      await query;
      expect(before).toBeGreaterThan(0);
      // After the reserve the backlog takes both workers again.
      await new Promise((resolve) => setTimeout(resolve, 400));
      await backlog;
      clearInterval(watch);
      expect(most).toBe(2);
    } finally {
      await two.close();
    }
  }, 60_000);

  it('lets interactive texts that arrive while one is embedded wait and go together; a backlog of them takes a second worker', async () => {
    const two = new BuiltinEmbeddingModel(2);
    try {
      await two.init();
      await two.doEmbed(texts, { priority: 'background' });
      expect(two.workers).toBe(2);

      const before = two.load().batches;
      const first = two.doEmbed(['who is travelling to Lisbon?']);
      const followers = [0, 1, 2].map((i) => two.doEmbed([`what did Sarah say about the roadmap, day ${i}?`]));
      // By state: the followers wait for the batch in flight instead of taking the free worker one by one.
      expect(two.busy()).toEqual({ interactive: 1, background: 0 });
      expect(two.load().queued.interactive).toBe(3);
      await Promise.all([first, ...followers]);
      expect(two.load().batches - before).toBe(2);

      const lead = two.doEmbed(['where is the kite festival?']);
      const crowd = Array.from({ length: 10 }, (_, i) => two.doEmbed([`a question about the ferry timetable, number ${i}`]));
      expect(two.busy()).toEqual({ interactive: 2, background: 0 });
      await Promise.all([lead, ...crowd]);
    } finally {
      await two.close();
    }
  }, 60_000);
});
