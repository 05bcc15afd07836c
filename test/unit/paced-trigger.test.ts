import { describe, expect, it } from 'vitest';
import { PacedTrigger } from '../../src/store/lancedb/paced-trigger.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A trigger over a counter the work clears, as the store's search compaction is. */
function harness(options: {
  every: number;
  workMs: number;
  outcome?: () => 'ran' | 'declined' | 'failed';
  quietMs?: number;
  quietAt?: number;
}) {
  let pending = 0;
  const runs: { startedAt: number; endedAt: number; covered: number }[] = [];
  const errors: unknown[] = [];
  const trigger = new PacedTrigger({
    every: options.every,
    pending: () => pending,
    restFactor: 4,
    maxRestMs: 10_000,
    ...(options.quietMs !== undefined ? { quietMs: options.quietMs } : {}),
    ...(options.quietAt !== undefined ? { quietAt: options.quietAt } : {}),
    run: async () => {
      const startedAt = Date.now();
      const outcome = options.outcome?.() ?? 'ran';
      if (outcome === 'declined') return false;
      const covered = pending;
      await sleep(options.workMs);
      if (outcome === 'failed') throw new Error('compaction failed');
      pending -= covered;
      runs.push({ startedAt, endedAt: Date.now(), covered });
      return true;
    },
    onError: (error) => errors.push(error),
  });
  const event = () => {
    pending += 1;
    trigger.note();
  };
  return { trigger, runs, errors, event, pending: () => pending };
}

describe('PacedTrigger', () => {
  it('runs once enough events are pending, and rests four times as long as the run took before the next', async () => {
    const { trigger, runs, event } = harness({ every: 3, workMs: 40 });
    event();
    event();
    await sleep(20);
    expect(runs).toHaveLength(0);
    event();
    // Events during the run and its rest still count: the second run starts when the rest ends.
    for (let i = 0; i < 6; i++) {
      await sleep(15);
      event();
    }
    const deadline = Date.now() + 5_000;
    while (runs.length < 2 && Date.now() < deadline) await sleep(10);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    const [first, second] = runs as [(typeof runs)[0], (typeof runs)[0]];
    expect(first.covered).toBeGreaterThanOrEqual(3);
    // A rest of at least 4x the first run's own length (timers fire late, never early; 2 ms of rounding).
    expect(second.startedAt - first.endedAt).toBeGreaterThanOrEqual(4 * (first.endedAt - first.startedAt) - 2);
    await trigger.close();
  });

  it('never runs with every = 0, and never after close', async () => {
    const never = harness({ every: 0, workMs: 1 });
    for (let i = 0; i < 10; i++) never.event();
    const closed = harness({ every: 1, workMs: 1 });
    await closed.trigger.close();
    closed.event();
    await sleep(30);
    expect(never.runs).toHaveLength(0);
    expect(closed.runs).toHaveLength(0);
  });

  it('reports a failed run and retries it after a rest; a declined run waits for the next event', async () => {
    const outcomes: ('ran' | 'declined' | 'failed')[] = ['failed', 'declined', 'ran'];
    const { trigger, runs, errors, event, pending } = harness({ every: 1, workMs: 5, outcome: () => outcomes.shift() ?? 'ran' });
    event();
    const deadline = Date.now() + 5_000;
    while (errors.length === 0 && Date.now() < deadline) await sleep(1);
    expect(errors).toHaveLength(1);
    expect(pending()).toBe(1);
    // After the failure's rest the retry declines (the other path holds the tables) and nothing is cleared...
    while (outcomes.length > 1 && Date.now() < deadline) await sleep(5);
    await trigger.idle();
    await sleep(50);
    expect(outcomes).toEqual(['ran']);
    expect(runs).toHaveLength(0);
    expect(pending()).toBe(1);
    // ... until the next event starts a run that covers both.
    event();
    while (runs.length === 0 && Date.now() < deadline) await sleep(5);
    expect(runs[0]?.covered).toBe(2);
    expect(pending()).toBe(0);
    await trigger.close();
  });

  it('runs fewer than every pending events once they have gone quiet, from quietAt on', async () => {
    const { trigger, runs, event, pending } = harness({ every: 20, workMs: 5, quietMs: 40, quietAt: 2 });
    event();
    // One event is below quietAt: it stays pending however quiet it gets.
    await sleep(150);
    expect(runs).toHaveLength(0);
    event();
    const deadline = Date.now() + 2_000;
    while (runs.length < 1 && Date.now() < deadline) await sleep(5);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.covered).toBe(2);
    expect(pending()).toBe(0);
    // Without quietMs, fewer than every wait for more events.
    const plain = harness({ every: 20, workMs: 5 });
    for (let i = 0; i < 5; i++) plain.event();
    await sleep(150);
    expect(plain.runs).toHaveLength(0);
    await trigger.close();
    await plain.trigger.close();
  });
});
