/**
 * Runs a piece of background work once enough events (commits) are pending, paced by the work's own measured
 * cost: after a run of d ms the next one starts no sooner than restFactor x d later (capped at maxRestMs), so
 * the work takes at most about 1 / (1 + restFactor) of the time whatever the tables hold.
 *
 * The owner counts the pending events (the work clears what it covers): events that come while the work runs
 * or rests still count, and when the rest ends with enough of them the next run starts at once.
 *
 * With `quietMs`, when no event has come for that long, what is pending runs once the rest is over if it is
 * at least `quietAt` (fewer than `every`): when writes stop, the last ones are not left for reads to pay until
 * the next burst.
 */
export interface PacedTriggerOptions {
  /** Pending events before a run (0: never run); a function is asked each time (the owner's rule may change). */
  readonly every: number | (() => number);
  readonly pending: () => number;
  readonly restFactor: number;
  readonly maxRestMs: number;
  /** After this long without an event, `quietAt` pending events are enough for a run (default: never). */
  readonly quietMs?: number;
  /** See quietMs (default 1). */
  readonly quietAt?: number;
  /** The work; it may decline (resolve false) while something else does it: the next event tries again. */
  readonly run: () => Promise<boolean>;
  readonly onError: (error: unknown) => void;
}

export class PacedTrigger {
  private running: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private quietTimer: ReturnType<typeof setTimeout> | null = null;
  private last = { endedAt: 0, durationMs: 0 };
  private closed = false;

  constructor(private readonly options: PacedTriggerOptions) {}

  /** An event was counted: starts the work (now or after the rest) once enough are pending. */
  note(): void {
    if (this.closed) return;
    this.armQuiet();
    this.schedule(false);
  }

  /** The run in progress, if any. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.timer = null;
    this.quietTimer = null;
    return this.idle();
  }

  private every(): number {
    const every = this.options.every;
    return typeof every === 'function' ? every() : every;
  }

  private enabled(): boolean {
    return !this.closed && this.every() > 0;
  }

  /** Enough pending for a run: `every` of them, or `quietAt` once the events have gone quiet. */
  private due(quiet: boolean): boolean {
    const pending = this.options.pending();
    const quietAt = Math.max(1, this.options.quietAt ?? 1);
    return this.enabled() && (pending >= this.every() || (quiet && this.options.quietMs !== undefined && pending >= quietAt));
  }

  private armQuiet(): void {
    if (this.options.quietMs === undefined || !this.enabled()) return;
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      this.schedule(true);
    }, this.options.quietMs);
    this.quietTimer.unref();
  }

  private schedule(quiet: boolean): void {
    if (this.running || this.timer || !this.due(quiet)) return;
    const rest = Math.min(this.options.maxRestMs, this.last.durationMs * this.options.restFactor);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.start(quiet);
    }, Math.max(0, this.last.endedAt + rest - Date.now()));
    this.timer.unref();
  }

  private start(quiet: boolean): void {
    if (this.running || !this.due(quiet)) return;
    const started = Date.now();
    let ran = true;
    this.running = this.options
      .run()
      .then(
        (done) => {
          ran = done;
        },
        // A failed run rests as a run does, so it is retried at the same pace, not on every event.
        (error: unknown) => this.options.onError(error),
      )
      .finally(() => {
        if (ran) this.last = { endedAt: Date.now(), durationMs: Math.max(1, Date.now() - started) };
        this.running = null;
        // A declined run waits for the next event rather than retrying at once while the other path works.
        if (!ran) return;
        this.schedule(false);
        // Events that came during the run and then stopped: the quiet timer may have fired meanwhile.
        if (this.options.quietMs !== undefined && !this.quietTimer && !this.running) this.schedule(true);
      });
  }
}
