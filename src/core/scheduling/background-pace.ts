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
  /**
   * While requests run, background work rests this many times as long as its last item or batch took
   * before the next one starts: it takes at most 1 / (1 + restFactor) of the time people wait (0: no rest).
   */
  readonly restFactor?: number;
  readonly now?: () => number;
}

export const DEFAULT_PACE: PaceOptions = {
  full: Number.POSITIVE_INFINITY,
  // While requests run a bulk job goes one batch at a time: a batch of 32 items is one commit to each
  // table, where pieces of two items cost three commits an item and LanceDB's threads, which have no
  // priorities, spent most of a core on them (bench/README.md, "Searches during a 10,000-item ingest").
  yielding: 32,
  // ... and rests twice as long as the batch took: the searches run on free cores two thirds of the time.
  // Interactive work goes first, so a bulk job gives up pace while someone searches; resting as long as the
  // batch did not keep searches within the latency target. The variants measured (batch sizes,
  // rests) are in bench/README.md.
  restFactor: 2,
  // Requests of one client arrive one after another: a gap this short is the same person still working.
  quietMs: 250,
};

/**
 * The pace of background work (ingest job items, a folder's first scan): at full speed while nobody waits on
 * the daemon; while interactive requests run and shortly after, one batch of a few dozen items at a time,
 * each followed by a rest twice as long as it took. The embedder already takes interactive texts first
 * (priority.ts), but background items also compete for the main thread, LanceDB's threads and the commits,
 * which have no priorities: with a bulk job's items all in flight, or in pieces of two (each its own
 * commits), searches slowed several times over (bench/README.md).
 */
export class BackgroundPace {
  private interactive = 0;
  private lastInteractiveAt = Number.NEGATIVE_INFINITY;
  private running = 0;
  /** Background work started while requests ran rests until then before more starts. */
  private restUntil = Number.NEGATIVE_INFINITY;
  private readonly waiting: { readonly wanted: number; readonly grant: (granted: number) => void }[] = [];
  private wake: NodeJS.Timeout | null = null;
  private wakeAt = 0;
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
      if (this.interactive === 0) this.scheduleWake();
    };
  }

  /** Waits for a background slot; call the returned function (once) when the item is done. */
  async acquire(): Promise<() => void> {
    return (await this.acquireUpTo(1)).release;
  }

  /**
   * Waits until background work may start, then takes as many slots as the pace allows now, up to `wanted`
   * (at least one), at once: a batch runs whole while nobody waits, and while requests run one batch of up
   * to the yielding size at a time (a second batch waits for the first, then for its rest). Call `release`
   * (once) when the granted items are done.
   */
  async acquireUpTo(wanted: number): Promise<{ readonly granted: number; readonly release: () => void }> {
    const want = Math.max(1, Math.floor(wanted));
    let granted: number;
    if (this.running >= this.allowed() || this.waiting.length > 0 || this.resting()) {
      const turn = new Promise<number>((grant) => this.waiting.push({ wanted: want, grant }));
      // Nothing else may wake it: the rest or the quiet period after the last request ends on a timer.
      this.scheduleWake();
      granted = await turn;
    } else granted = this.take(want);
    const startedAt = this.now();
    let released = false;
    return {
      granted,
      release: () => {
        if (released) return;
        released = true;
        this.running -= granted;
        this.restAfter(startedAt);
        this.pump();
      },
    };
  }

  /** Slots for `wanted` items out of those free now (at least one: called only when one is). */
  private take(wanted: number): number {
    const granted = Math.max(1, Math.min(wanted, this.allowed() - this.running));
    this.running += granted;
    return granted;
  }

  load(): PaceLoad {
    return { interactive: this.interactive, running: this.running, waiting: this.waiting.length, allowed: this.allowed() };
  }

  private quiet(): boolean {
    return this.interactive === 0 && this.now() - this.lastInteractiveAt >= this.options.quietMs;
  }

  private allowed(): number {
    return this.quiet() ? this.options.full : this.options.yielding;
  }

  private resting(): boolean {
    return !this.quiet() && this.now() < this.restUntil;
  }

  /** Work that ends while requests run rests in proportion to its length (the longest rest owed wins). */
  private restAfter(startedAt: number): void {
    const factor = this.options.restFactor ?? 0;
    if (factor <= 0 || this.quiet()) return;
    const now = this.now();
    this.restUntil = Math.max(this.restUntil, now + factor * (now - startedAt));
  }

  /** Hands free slots to the waiting, first come first served. */
  private pump(): void {
    while (this.waiting.length > 0 && this.running < this.allowed() && !this.resting()) {
      const next = this.waiting.shift();
      if (next) next.grant(this.take(next.wanted));
    }
    this.scheduleWake();
  }

  /**
   * Waiting items that nothing else will wake (no release to come, or none soon) are woken by a timer when
   * the rest ends or, with no request running, when the quiet period after the last one has passed.
   */
  private scheduleWake(): void {
    if (this.waiting.length === 0) return;
    const now = this.now();
    const quietAt = this.interactive === 0 ? this.lastInteractiveAt + this.options.quietMs : Number.NEGATIVE_INFINITY;
    // Only moments still to come: once quiet, or with no rest owed, a release is what frees a slot.
    const at = Math.min(...[quietAt, this.restUntil].filter((moment) => moment > now));
    if (!Number.isFinite(at) || (this.wake && this.wakeAt <= at)) return;
    if (this.wake) clearTimeout(this.wake);
    this.wakeAt = at;
    this.wake = setTimeout(() => {
      this.wake = null;
      this.pump();
    }, at - now + 1);
    this.wake.unref();
  }
}
