import { afterEach, describe, expect, it, vi } from 'vitest';
import { fullCollection, IdleCollector } from '../../src/jobs/idle-collector.js';

describe('IdleCollector', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once after a quiet period, and each activity starts the period again', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const reports: unknown[] = [];
    const idle = new IdleCollector(collect, { quietMs: 1000, onCollected: (report) => reports.push(report) });
    idle.activity();
    vi.advanceTimersByTime(600);
    idle.activity();
    vi.advanceTimersByTime(600);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(400);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(reports).toEqual([expect.objectContaining({ heapUsedBefore: expect.any(Number), heapUsedAfter: expect.any(Number), ms: expect.any(Number) })]);
    // Left alone, it does not collect again.
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
    // The next request starts a new quiet period, which ends with one more collection.
    idle.activity();
    vi.advanceTimersByTime(1000);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('does nothing after close', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const idle = new IdleCollector(collect, { quietMs: 1000 });
    idle.activity();
    idle.close();
    idle.activity();
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled();
  });

  it('reaches V8 full collection without --expose-gc, and it frees garbage', () => {
    const collect = fullCollection();
    expect(collect).toBeTypeOf('function');
    let garbage: number[][] | null = Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i + 0.5));
    const withGarbage = process.memoryUsage().heapUsed;
    expect(garbage.length).toBe(200);
    garbage = null;
    collect?.();
    // 200 x 10,000 doubles is ~16 MB; after a full collection most of it is gone.
    expect(withGarbage - process.memoryUsage().heapUsed).toBeGreaterThan(8 * 1024 * 1024);
  });
});
