import { performance } from 'node:perf_hooks';

/** Summary of a sample of durations (milliseconds) or any other measurements. */
export interface Summary {
  readonly n: number;
  readonly mean: number;
  readonly min: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * The p-th percentile (0-100) with linear interpolation between closest ranks (numpy's default), so p50 of
 * an even-sized sample is the mean of the two middle values. NaN for an empty sample.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return percentileOfSorted(sorted, p);
}

function percentileOfSorted(sorted: readonly number[], p: number): number {
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const low = sorted[lower] ?? Number.NaN;
  const high = sorted[upper] ?? low;
  return low + (high - low) * (rank - lower);
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    mean: mean(sorted),
    min: sorted[0] ?? Number.NaN,
    p50: percentileOfSorted(sorted, 50),
    p95: percentileOfSorted(sorted, 95),
    p99: percentileOfSorted(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Items per second for `count` items done in `elapsedMs` milliseconds. */
export function throughput(count: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (count * 1000) / elapsedMs : Number.NaN;
}

export interface Timed<T> {
  readonly value: T;
  readonly ms: number;
}

/** Runs `task` and measures its wall-clock time with the monotonic high-resolution clock. */
export async function timed<T>(task: () => Promise<T> | T): Promise<Timed<T>> {
  const started = performance.now();
  const value = await task();
  return { value, ms: performance.now() - started };
}

/** Rounds for reports: figures are measured, not exact, so 1-4 decimals say all there is to say. */
export function round(value: number, digits = 1): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A latency summary rounded for the report (ms, 0.1 ms resolution). */
export function latencyFigures(values: readonly number[]): Summary {
  const summary = summarize(values);
  return {
    n: summary.n,
    mean: round(summary.mean, 1),
    min: round(summary.min, 1),
    p50: round(summary.p50, 1),
    p95: round(summary.p95, 1),
    p99: round(summary.p99, 1),
    max: round(summary.max, 1),
  };
}
