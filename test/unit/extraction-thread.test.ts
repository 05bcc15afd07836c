import { afterAll, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { BuiltinExtractor } from '../../src/providers/builtin/builtin-extractor.js';

const REFERENCE = Date.UTC(2026, 2, 3);
const notes = [
  'Met Sarah Chen, the CEO of Acme Corp, in Lisbon on Tuesday to talk about the Q3 roadmap.',
  'Priya joined Stripe as head of design last week; she moves to Dublin in May.',
  'Call with Marcus Webb from Globex about the renewal. Revenue was $3M in 2025.',
  'Nothing to extract here, only lowercase words about nothing much.',
];

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('built-in extractor in a worker thread', () => {
  const inProcess = new BuiltinExtractor();
  const threaded = new BuiltinExtractor({ thread: true, idleMs: 300 });
  afterAll(async () => {
    await threaded.close();
    await inProcess.close();
  });

  it('gives exactly what the in-process extractor gives, also for many extractions at once', async () => {
    const expected = await Promise.all(notes.map((text) => inProcess.extract({ text, referenceTime: REFERENCE })));
    expect(expected[0]?.entities.map((entity) => entity.name)).toContain('Sarah Chen');
    const many = [...notes, ...notes, ...notes];
    const got = await Promise.all(many.map((text) => threaded.extract({ text, referenceTime: REFERENCE })));
    got.forEach((extraction, i) => expect(extraction).toEqual(expected[i % notes.length]));
  }, 60_000);

  it('starts on demand, stops when idle, and starts again for the next extraction', async () => {
    const idle = new BuiltinExtractor({ thread: true, idleMs: 200 });
    try {
      expect(idle.threadRunning).toBe(false);
      const first = await idle.extract({ text: notes[0] as string, referenceTime: REFERENCE });
      expect(idle.threadRunning).toBe(true);
      await until(() => !idle.threadRunning);
      expect(idle.threadRunning).toBe(false);
      expect(await idle.extract({ text: notes[0] as string, referenceTime: REFERENCE })).toEqual(first);
      expect(idle.threadRunning).toBe(true);
    } finally {
      await idle.close();
    }
  }, 60_000);

  it('keeps the thread while extractions keep coming', async () => {
    // Each extraction restarts the idle clock: 12 extractions 100 ms apart outlast one idle period.
    const busy = new BuiltinExtractor({ thread: true, idleMs: 600 });
    try {
      await busy.init();
      for (let i = 0; i < 12; i++) {
        await busy.extract({ text: notes[i % notes.length] as string, referenceTime: REFERENCE });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(busy.threadRunning).toBe(true);
      }
    } finally {
      await busy.close();
    }
  }, 60_000);

  it('refuses work after close with MODEL_UNAVAILABLE', async () => {
    const closed = new BuiltinExtractor({ thread: true });
    await closed.close();
    const error = await closed.extract({ text: 'Sarah met Tom.', referenceTime: REFERENCE }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MemError);
    expect((error as MemError).code).toBe('MODEL_UNAVAILABLE');
  });

  it('runs an interactive extraction before a backlog of background ones (by order of completion)', async () => {
    const order: string[] = [];
    const background = Array.from({ length: 40 }, (_, i) =>
      threaded.extract({ text: notes[i % notes.length] as string, referenceTime: REFERENCE, priority: 'background' }).then(() => order.push(`background ${i}`)),
    );
    const interactive = threaded
      .extract({ text: notes[0] as string, referenceTime: REFERENCE, priority: 'interactive' })
      .then(() => order.push('interactive'));
    await Promise.all([...background, interactive]);
    expect(order).toHaveLength(41);
    // FIFO would finish it last; only what the thread already held (two) may finish before it.
    expect(order.indexOf('interactive')).toBeLessThanOrEqual(2);
  }, 60_000);
});

