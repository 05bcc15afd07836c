import PQueue from 'p-queue';

/**
 * A bounded background queue (p-queue). Tasks receive an AbortSignal that fires when the queue closes, so
 * long jobs stop between items; `close()` stops taking work, aborts and waits for what is running.
 */
export class JobQueue {
  private readonly queue: PQueue;
  private readonly controller = new AbortController();
  private closed = false;

  constructor(concurrency: number) {
    this.queue = new PQueue({ concurrency });
  }

  get size(): number {
    return this.queue.size + this.queue.pending;
  }

  /** Schedules a task; errors are the task's own to record (the queue never rejects on them). */
  add(task: (signal: AbortSignal) => Promise<void>): void {
    if (this.closed) return;
    void this.queue.add(() => task(this.controller.signal)).catch(() => undefined);
  }

  /** Runs a task in turn and resolves with its result (rejects with its error, or when the queue is closed). */
  run<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('queue closed'));
    return this.queue.add(() => task(this.controller.signal)) as Promise<T>;
  }

  onIdle(): Promise<void> {
    return this.queue.onIdle();
  }

  /** Drains: running tasks finish (or notice the abort), queued ones are dropped and resume next start. */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.clear();
    this.controller.abort();
    await this.queue.onIdle();
  }
}
