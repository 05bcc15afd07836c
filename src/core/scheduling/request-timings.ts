/** One kind of request over the recent window: how many, and how long they waited and worked (ms). */
export interface RequestTypeLoad {
  readonly type: string;
  readonly count: number;
  readonly perSecond: number;
  readonly errors: number;
  readonly queuedMs: { readonly p50: number; readonly p99: number };
  readonly workingMs: { readonly p50: number; readonly p99: number };
}

interface Sample {
  readonly at: number;
  readonly queuedMs: number;
  readonly workingMs: number;
  readonly failed: boolean;
}

/** Samples kept per type: enough for a p99 of a minute at a few hundred requests per second. */
const MAX_SAMPLES = 20_000;

/**
 * Per request type (method and route pattern), the time each recent request waited for a slot and the
 * time it then took, over a sliding window: where the time goes under load, for GET /v1/status.
 */
export class RequestTimings {
  private readonly samples = new Map<string, Sample[]>();

  constructor(
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  record(type: string, queuedMs: number, workingMs: number, failed: boolean): void {
    let list = this.samples.get(type);
    if (!list) {
      list = [];
      this.samples.set(type, list);
    }
    list.push({ at: this.now(), queuedMs, workingMs, failed });
    if (list.length > MAX_SAMPLES) list.splice(0, list.length - MAX_SAMPLES);
  }

  /** The types seen in the window, busiest first. */
  snapshot(): RequestTypeLoad[] {
    const since = this.now() - this.windowMs;
    const seconds = this.windowMs / 1000;
    const out: RequestTypeLoad[] = [];
    for (const [type, list] of this.samples) {
      const first = list.findIndex((sample) => sample.at >= since);
      if (first < 0) {
        this.samples.delete(type);
        continue;
      }
      if (first > 0) list.splice(0, first);
      const queued = list.map((sample) => sample.queuedMs).sort((a, b) => a - b);
      const working = list.map((sample) => sample.workingMs).sort((a, b) => a - b);
      out.push({
        type,
        count: list.length,
        perSecond: round(list.length / seconds),
        errors: list.filter((sample) => sample.failed).length,
        queuedMs: { p50: round(quantile(queued, 0.5)), p99: round(quantile(queued, 0.99)) },
        workingMs: { p50: round(quantile(working, 0.5)), p99: round(quantile(working, 0.99)) },
      });
    }
    return out.sort((a, b) => b.count - a.count);
  }
}

/** Nearest-rank quantile of sorted values (0 for none). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
