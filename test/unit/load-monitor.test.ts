import { describe, expect, it } from 'vitest';
import { cpuShares } from '../../daemon/load-monitor.js';

describe('the load monitor\'s CPU split', () => {
  it('reports the threads\' busy time as their cores when the process had them', () => {
    // 10 s: 12 s of CPU, the main thread busy 2 s, the embedding workers 8 s; LanceDB and the rest did 2 s.
    expect(cpuShares(12_000, 2_000, { 'embed-worker': 8_000 }, 10_000)).toEqual({ process: 1.2, main: 0.2, workers: { 'embed-worker': 0.8 }, other: 0.2 });
  });

  it('scales the threads\' parts to the process\'s CPU when a contended host makes them wait for a core', () => {
    // Busy 2.7 s per second in all against 1.2 s of CPU: the parts keep their proportions and add up.
    const shares = cpuShares(12_000, 2_600, { 'embed-worker': 16_100, 'extract-worker': 8_300 }, 10_000);
    expect(shares.process).toBe(1.2);
    expect(shares.main + (shares.workers['embed-worker'] ?? 0) + (shares.workers['extract-worker'] ?? 0) + shares.other).toBeCloseTo(1.2, 1);
    expect(shares.workers['embed-worker']).toBeCloseTo(0.72, 2);
    expect(shares.other).toBe(0);
  });
});
