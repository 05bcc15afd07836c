/** What GET /v1/status shows of the pace: how much background work runs and may run now. */
export interface PaceLoad {
  /** Interactive requests being served now. */
  readonly interactive: number;
  /** Background items running now, and waiting for a slot. */
  readonly running: number;
  readonly waiting: number;
  /** Background items allowed at once now (`full` when no person or agent waits on the daemon). */
  readonly allowed: number;
}

export interface PaceOptions {
  /** Background items at once while nothing interactive runs (the item queues' own limits apply too). */
  readonly full: number;
  /** ... while an interactive request runs, and for `quietMs` after the last one ended. */
  readonly yielding: number;
  readonly quietMs: number;
  readonly now?: () => number;
}

export const DEFAULT_PACE: PaceOptions = {
  full: Number.POSITIVE_INFINITY,
  // A few items keep a bulk job moving (the embedder still serves the interactive texts first) while the
  // main thread and LanceDB, which have no priorities, are left mostly to the requests.
  yielding: 4,
  // Requests of one client arrive one after another: a gap this short is the same person still working.
  quietMs: 250,
};

/**
 * The pace of background work (ingest job items, a folder's first scan): at full speed while nobody waits on
 * the daemon, shrunk to a few items at once while interactive requests run and shortly after. The embedder
 * already takes interactive texts first (priority.ts), but a bulk job's 64 items in flight also compete
 * for the main thread, LanceDB's threads and the commits, which have no priorities: a search's p95 during
 * an ingest was 0.8-1.3 s for a p50 of ~0.1 s.
 */
export class BackgroundPace {
  private interactive = 0;
  private lastInteractiveAt = Number.NEGATIVE_INFINITY;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private wake: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(private readonly options: PaceOptions = DEFAULT_PACE) {
    this.now = options.now ?? (() => performance.now());
  }

  /** An interactive request started; call the returned function (once) when it has been answered. */
  interactiveStarted(): () => void {
    this.interactive += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.interactive -= 1;
      this.lastInteractiveAt = this.now();
      if (this.interactive === 0) this.wakeAfterQuiet();
    };
  }

  /** Waits for a background slot; call the returned function (once) when the item is done. */
  async acquire(): Promise<() => void> {
    if (this.running >= this.allowed() || this.waiting.length > 0) {
      const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
      // Arriving in the quiet period after the last request: nothing else would wake it when that ends.
      if (this.interactive === 0) this.wakeAfterQuiet();
      await turn;
    } else this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.pump();
    };
  }

  /**
   * Waits for a slot like acquire(), then takes as many more as the pace allows now, up to `wanted` in all
   * (at least one): a batch of background items runs whole while nobody waits, and while requests run in
   * pieces of half the yielding size, so that two pieces overlap (one embeds while the other commits).
   * Call `release` (once) when the granted items are done.
   */
  async acquireUpTo(wanted: number): Promise<{ readonly granted: number; readonly release: () => void }> {
    const first = await this.acquire();
    const allowed = this.allowed();
    const piece = Number.isFinite(allowed) ? Math.ceil(allowed / 2) : Math.floor(wanted);
    const taken = this.waiting.length > 0 ? 0 : Math.max(0, Math.min(Math.floor(wanted) - 1, piece - 1, allowed - this.running));
    this.running += taken;
    let released = false;
    return {
      granted: 1 + taken,
      release: () => {
        if (released) return;
        released = true;
        this.running -= taken;
        first();
      },
    };
  }

  load(): PaceLoad {
    return { interactive: this.interactive, running: this.running, waiting: this.waiting.length, allowed: this.allowed() };
  }

  private allowed(): number {
    const quiet = this.interactive === 0 && this.now() - this.lastInteractiveAt >= this.options.quietMs;
    return quiet ? this.options.full : this.options.yielding;
  }

  /** Hands free slots to waiting items, first come first served (the slot passes to them: running stays). */
  private pump(): void {
    while (this.waiting.length > 0 && this.running < this.allowed()) {
      this.running += 1;
      this.waiting.shift()?.();
    }
    if (this.waiting.length > 0 && this.interactive === 0) this.wakeAfterQuiet();
  }

  /** Once the quiet period has passed, the waiting items may run at full pace again. */
  private wakeAfterQuiet(): void {
    if (this.wake || this.waiting.length === 0) return;
    const remaining = Math.max(0, this.lastInteractiveAt + this.options.quietMs - this.now());
    this.wake = setTimeout(() => {
      this.wake = null;
      this.pump();
    }, remaining + 1);
    this.wake.unref();
  }
}
