import type { UsageStore } from '../ports.js';
import type { UsageEvent } from '../types.js';

const FLUSH_EVERY_MS = 1_000;
const FLUSH_AT_EVENTS = 500;

/**
 * Records requests off the hot path: events are buffered and written in one LanceDB commit per second (or
 * per 500 events). Readers call flush() first, so a request is visible in the very next usage report; a
 * `kill -9` loses at most the last second of statistics (a graceful stop flushes).
 */
export class UsageRecorder {
  private buffer: UsageEvent[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: UsageStore,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  record(event: UsageEvent): void {
    this.buffer.push(event);
    if (this.buffer.length >= FLUSH_AT_EVENTS) void this.flush();
  }

  /** Writes everything recorded so far; resolves once it is stored. */
  flush(): Promise<void> {
    const batch = this.buffer;
    this.buffer = [];
    // Chained so batches land in order and a reader's flush waits for earlier ones too.
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        await this.store.append(batch);
      } catch (error) {
        this.onError(error);
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
