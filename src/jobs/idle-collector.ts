import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How long the daemon must go without a request before it collects its heap once. */
export const QUIET_MS = 30_000;

export interface CollectionReport {
  /** Heap in use before and after the collection, in bytes. */
  readonly heapUsedBefore: number;
  readonly heapUsedAfter: number;
  readonly ms: number;
}

/**
 * Gives the heap's garbage back once the daemon goes quiet. V8 sizes its heap to the peaks of recent work
 * (an aggregation over 100k rows, a depth-3 graph, an ingest) and, with nothing allocating, has no reason
 * to run the full collection that would free those pages: measured at 100k memories, the main heap held
 * 94-168 MB 75 s after the last request, and 38-39 MB after one full collection (bench/README.md, Memory).
 *
 * So each request re-arms a timer, and after `quietMs` without one a single full collection runs (tens of
 * milliseconds at these sizes, at a moment nobody is waiting). One per quiet period: a daemon left alone
 * collects once, not every `quietMs`.
 */
export class IdleCollector {
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly collect: () => void,
    private readonly options: { readonly quietMs?: number; readonly onCollected?: (report: CollectionReport) => void } = {},
  ) {}

  /** Something happened (a request, a maintenance pass): the quiet period starts again. */
  activity(): void {
    if (this.closed) return;
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      const before = process.memoryUsage().heapUsed;
      const started = performance.now();
      this.collect();
      this.options.onCollected?.({ heapUsedBefore: before, heapUsedAfter: process.memoryUsage().heapUsed, ms: performance.now() - started });
    }, this.options.quietMs ?? QUIET_MS);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/**
 * V8's full collection, without starting Node with --expose-gc (the daemon is started several ways: `mem
 * serve`, `mem daemon start`, `npm start`): the flag is set at run time and a fresh context picks up the
 * `gc` function it installs. Null where that does not work, so the daemon runs on without idle collections.
 */
export function fullCollection(): (() => void) | null {
  const existing = (globalThis as { gc?: unknown }).gc;
  if (typeof existing === 'function') return () => (existing as () => void)();
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? () => (gc as () => void)() : null;
  } catch {
    return null;
  }
}
