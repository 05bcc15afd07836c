import { describe, expect, it } from 'vitest';
import { quantile, RequestTimings } from '../../src/core/scheduling/request-timings.js';

describe('request timings', () => {
  it('reports per type the rate and the queued and working percentiles of the window, busiest first', () => {
    let now = 0;
    const timings = new RequestTimings(10_000, () => now);
    for (let i = 1; i <= 100; i++) timings.record('POST /v1/search', i, 10 * i, i === 100);
    timings.record('GET /v1/memory/:id', 0, 2, false);
    const [search, get] = timings.snapshot();
    expect(search).toMatchObject({ type: 'POST /v1/search', count: 100, perSecond: 10, errors: 1, queuedMs: { p50: 50, p99: 99 }, workingMs: { p50: 500, p99: 990 } });
    expect(get).toMatchObject({ type: 'GET /v1/memory/:id', count: 1 });
    // Past the window the samples are gone.
    now = 10_001;
    expect(timings.snapshot()).toEqual([]);
  });

  it('takes nearest-rank quantiles', () => {
    expect(quantile([], 0.5)).toBe(0);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 4], 0.99)).toBe(4);
  });
});
