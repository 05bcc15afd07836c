import { afterEach, describe, expect, it, vi } from 'vitest';
import { BackgroundPace } from '../../src/core/scheduling/background-pace.js';

/** Background items that record when they started (in order), held until released by the test. */
function items(pace: BackgroundPace, count: number) {
  const started: number[] = [];
  const releases: (() => void)[] = [];
  for (let i = 0; i < count; i++) {
    void pace.acquire().then((release) => {
      started.push(i);
      releases.push(release);
    });
  }
  return { started, releases };
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('background pace', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs background items at full pace while nothing interactive runs', async () => {
    const pace = new BackgroundPace({ full: 8, yielding: 2, quietMs: 100, now: () => 0 });
    const { started } = items(pace, 10);
    await flush();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(pace.load()).toEqual({ interactive: 0, running: 8, waiting: 2, allowed: 8 });
  });

  it('lets only a few background items start while interactive requests run and shortly after, then all of them', async () => {
    vi.useFakeTimers();
    const pace = new BackgroundPace({ full: 8, yielding: 2, quietMs: 100, now: () => Date.now() });
    const ended = pace.interactiveStarted();
    const { started, releases } = items(pace, 6);
    await flush();
    expect(started).toEqual([0, 1]);
    // A finished item hands its slot to the next one, in order; the count stays at the yielding pace.
    releases[0]?.();
    await flush();
    expect(started).toEqual([0, 1, 2]);
    expect(pace.load()).toMatchObject({ interactive: 1, running: 2, waiting: 3, allowed: 2 });
    ended();
    ended(); // idempotent
    vi.advanceTimersByTime(50);
    await flush();
    expect(started).toEqual([0, 1, 2]);
    // Another request within the quiet period keeps the pace down.
    const again = pace.interactiveStarted();
    vi.advanceTimersByTime(200);
    await flush();
    expect(started).toEqual([0, 1, 2]);
    again();
    vi.advanceTimersByTime(101);
    await flush();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(pace.load()).toMatchObject({ interactive: 0, running: 5, waiting: 0, allowed: 8 });
  });

  it('items that arrive in the quiet period after the last request run at full pace once it has passed', async () => {
    vi.useFakeTimers();
    const pace = new BackgroundPace({ full: 8, yielding: 2, quietMs: 100, now: () => Date.now() });
    pace.interactiveStarted()();
    const { started } = items(pace, 5);
    await flush();
    expect(started).toEqual([0, 1]);
    vi.advanceTimersByTime(101);
    await flush();
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('a released slot is released once', async () => {
    const pace = new BackgroundPace({ full: 1, yielding: 1, quietMs: 0, now: () => 0 });
    const first = await pace.acquire();
    first();
    first();
    const second = await pace.acquire();
    expect(pace.load().running).toBe(1);
    const { started } = items(pace, 1);
    await flush();
    expect(started).toEqual([]);
    second();
    await flush();
    expect(started).toEqual([0]);
  });

  it('grants a batch as many slots as the pace allows now: the whole batch at full pace, one piece of the yielding size while requests run', async () => {
    const pace = new BackgroundPace({ full: Number.POSITIVE_INFINITY, yielding: 4, quietMs: 100, now: () => 0 });
    const whole = await pace.acquireUpTo(32);
    expect(whole.granted).toBe(32);
    expect(pace.load().running).toBe(32);
    // Another batch at the same time runs whole too.
    const other = await pace.acquireUpTo(8);
    expect(other.granted).toBe(8);
    other.release();
    whole.release();
    whole.release(); // once only
    expect(pace.load().running).toBe(0);

    const ended = pace.interactiveStarted();
    // While a request runs: one piece of the yielding size; the next batch waits for it.
    const first = await pace.acquireUpTo(32);
    expect(first.granted).toBe(4);
    let second: { granted: number; release: () => void } | null = null;
    void pace.acquireUpTo(32).then((granted) => (second = granted));
    await flush();
    expect(second).toBeNull();
    expect(pace.load()).toMatchObject({ running: 4, waiting: 1, allowed: 4 });
    first.release();
    await flush();
    expect(second).not.toBeNull();
    expect(second!.granted).toBe(4);
    // A smaller batch takes what it asks for (never fewer than one, never more than allowed).
    second!.release();
    const small = await pace.acquireUpTo(3);
    expect(small.granted).toBe(3);
    small.release();
    ended();
    expect(pace.load().running).toBe(0);
    const single = await pace.acquireUpTo(1);
    expect(single.granted).toBe(1);
    single.release();
  });

  it('while requests run, background work rests as long as its last piece took (times the factor) before the next starts', async () => {
    vi.useFakeTimers();
    const pace = new BackgroundPace({ full: 8, yielding: 2, quietMs: 100, restFactor: 1, now: () => Date.now() });
    const ended = pace.interactiveStarted();
    const first = await pace.acquireUpTo(8);
    expect(first.granted).toBe(2);
    vi.advanceTimersByTime(300); // the piece takes 300 ms
    first.release();
    let next: { granted: number; release: () => void } | null = null;
    void pace.acquireUpTo(8).then((granted) => (next = granted));
    await flush();
    vi.advanceTimersByTime(250);
    await flush();
    expect(next).toBeNull(); // resting: 300 ms owed, 250 passed
    expect(pace.load()).toMatchObject({ running: 0, waiting: 1 });
    vi.advanceTimersByTime(60);
    await flush();
    expect(next!.granted).toBe(2);
    // The rest ends early once nobody waits on the daemon any more, and work then runs at full pace.
    vi.advanceTimersByTime(400);
    next!.release(); // 400 ms: 400 ms of rest owed
    let after: { granted: number; release: () => void } | null = null;
    void pace.acquireUpTo(8).then((granted) => (after = granted));
    ended();
    vi.advanceTimersByTime(50);
    await flush();
    expect(after).toBeNull();
    vi.advanceTimersByTime(60); // the quiet period (100 ms) has passed, the rest (400 ms) has not
    await flush();
    expect(after!.granted).toBe(8);
    after!.release();
    // Work that ends with nobody waiting owes no rest.
    const free = await pace.acquireUpTo(8);
    vi.advanceTimersByTime(1_000);
    free.release();
    const again = await pace.acquireUpTo(8);
    expect(again.granted).toBe(8);
    again.release();
  });

  it('two batches that ask at once while requests run go one after the other, each whole', async () => {
    const pace = new BackgroundPace({ full: Number.POSITIVE_INFINITY, yielding: 32, quietMs: 100, now: () => 0 });
    pace.interactiveStarted();
    const grants: number[] = [];
    const releases: (() => void)[] = [];
    for (const wanted of [32, 8]) {
      void pace.acquireUpTo(wanted).then(({ granted, release }) => {
        grants.push(granted);
        releases.push(release);
      });
    }
    await flush();
    expect(grants).toEqual([32]); // not 31 and 1: a batch takes its slots at once
    releases[0]?.();
    await flush();
    expect(grants).toEqual([32, 8]);
  });

  it('rests nothing with no rest factor', async () => {
    vi.useFakeTimers();
    const pace = new BackgroundPace({ full: 8, yielding: 2, quietMs: 100, now: () => Date.now() });
    pace.interactiveStarted();
    const first = await pace.acquire();
    vi.advanceTimersByTime(500);
    first();
    const { started } = items(pace, 1);
    await flush();
    expect(started).toEqual([0]);
  });
});
