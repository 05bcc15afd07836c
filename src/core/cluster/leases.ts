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
    return { signal: new AbortController().signal, stop: () => undefined };
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
    let validUntil = acquiredAt + leaseMs;
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      const at = this.now();
      store
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
        .finally(() => (renewing = false));
    }, Math.max(100, Math.floor(leaseMs / 3)));
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
    return { signal: controller.signal, stop };
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
