import { randomBytes } from 'node:crypto';

/**
 * A lease in the store: the conditional write that lets several daemons on one store agree on who runs a
 * piece of background work. `tryAcquire` succeeds for the current holder (a renewal) or when the lease is
 * free or expired, and for at most one caller at a time (the store's compare-and-set decides).
 */
export interface LeaseStore {
  tryAcquire(name: string, holder: string, until: number, now: number): Promise<boolean>;
  /** Who holds the named lease and until when; null for a lease never taken. */
  holderOf(name: string): Promise<{ readonly holder: string; readonly expiresAt: number } | null>;
}

/** Work this daemon holds a lease on; `signal` aborts when a renewal fails (another daemon took it over). */
export interface Claim {
  readonly signal: AbortSignal;
  /**
   * Whether the lease is certainly still this daemon's, to ask before a write that another holder must not
   * repeat: true at once while the last renewal is recent; otherwise it renews first and answers after, false
   * once the lease is lost. A daemon whose event loop stalled past its renewals (a loaded host) would
   * otherwise go on writing while the daemon that took the lease over does the same work again.
   */
  confirm(): Promise<boolean>;
  /** Stops renewing. The lease is left to expire, so a daemon that takes it over later reads settled data. */
  stop(): void;
}

export interface Leases {
  /** Claims the named lease and keeps renewing it; null when another daemon holds it. */
  claim(name: string): Promise<Claim | null>;
  /** Whether another daemon holds the named lease now (a live one: not expired). */
  heldElsewhere(name: string): Promise<boolean>;
}

/** One daemon on its own data: every claim succeeds and is never lost. */
export class LocalLeases implements Leases {
  async claim(): Promise<Claim> {
    return { signal: new AbortController().signal, confirm: async () => true, stop: () => undefined };
  }

  async heldElsewhere(): Promise<boolean> {
    return false;
  }
}

export interface StoreLeasesOptions {
  readonly store: LeaseStore;
  /** How long a lease lasts without renewal; it is renewed every third of that. */
  readonly leaseMs: number;
  readonly now?: () => number;
  readonly onError?: (error: unknown, name: string) => void;
}

/**
 * Leases of one daemon (its holder id is random per process, so a restarted daemon does not inherit the
 * leases of its previous life and waits for them to expire like any other daemon).
 */
export class StoreLeases implements Leases {
  readonly holder = `daemon-${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly timers = new Set<ReturnType<typeof setInterval>>();
  private readonly now: () => number;

  constructor(private readonly options: StoreLeasesOptions) {
    this.now = options.now ?? Date.now;
  }

  async claim(name: string): Promise<Claim | null> {
    const { store, leaseMs } = this.options;
    const acquiredAt = this.now();
    if (!(await store.tryAcquire(name, this.holder, acquiredAt + leaseMs, acquiredAt))) return null;
    const controller = new AbortController();
    // Until when the lease is this daemon's for certain: counted from when the last successful renewal
    // was sent, not from when its answer came back.
    let validUntil = acquiredAt + leaseMs;
    // Another daemon may take the lease only once it has expired by its own clock: a write is confirmed
    // while a third of the lease is left, the margin for the write itself and for clocks that differ.
    const margin = Math.floor(leaseMs / 3);
    let renewing: Promise<void> | null = null;
    const renew = (): Promise<void> => {
      if (renewing) return renewing;
      const at = this.now();
      renewing = store
        .tryAcquire(name, this.holder, at + leaseMs, at)
        .then((held) => {
          if (held) validUntil = at + leaseMs;
          else lose();
        })
        .catch((error: unknown) => {
          this.options.onError?.(error, name);
          // A store out of reach: the lease may expire meanwhile, and then the work must stop.
          if (this.now() >= validUntil) lose();
        })
        .finally(() => (renewing = null));
      return renewing;
    };
    const timer = setInterval(() => void renew(), Math.max(100, Math.floor(leaseMs / 3)));
    timer.unref();
    this.timers.add(timer);
    const stop = () => {
      clearInterval(timer);
      this.timers.delete(timer);
    };
    const lose = () => {
      stop();
      controller.abort(new Error(`lease ${name} was lost`));
    };
    const confirm = async (): Promise<boolean> => {
      // Ends: each round either renews (then the lease is valid) or fails, and a failure past the lease's
      // end loses it; a store out of reach is retried after a short pause.
      while (!controller.signal.aborted) {
        if (this.now() < validUntil - margin) return true;
        await renew();
        if (controller.signal.aborted) break;
        if (this.now() < validUntil - margin) return true;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100, margin)));
      }
      return false;
    };
    return { signal: controller.signal, confirm, stop };
  }

  async heldElsewhere(name: string): Promise<boolean> {
    const held = await this.options.store.holderOf(name);
    return held !== null && held.holder !== this.holder && held.expiresAt > this.now();
  }

  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
  }
}
