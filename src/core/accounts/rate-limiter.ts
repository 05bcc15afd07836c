import type { UsageStore } from '../ports.js';
import type { Account, ApiKeyRecord } from '../types.js';
import { requestLimits, type PlanTable } from './plans.js';

const HOUR_MS = 3_600_000;

/** Fixed windows: the clock hour and the calendar month, both in UTC. */
function hourStart(now: number): number {
  return Math.floor(now / HOUR_MS) * HOUR_MS;
}

function monthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextMonthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

interface Counter {
  hour: number;
  hourCount: number;
  month: number;
  monthCount: number;
  /** When the counts were last read from the recorded usage. */
  loadedAt: number;
  refreshing?: boolean;
}

export interface RateLimiterOptions {
  /**
   * Other daemons count requests of the same accounts (a shared store): counts are read from the recorded
   * usage again when older than this, in the background, and never go down. A limit can then be passed by
   * the requests other daemons admit within about this + the usage flush (1 s) + the read-consistency bound.
   */
  readonly syncMs?: number;
}

interface Constraint {
  readonly limit: number;
  readonly used: number;
  readonly resetAt: number;
  readonly window: 'hour' | 'month';
}

export interface RateDecision {
  readonly allowed: boolean;
  /** The binding limit for the response headers; null when nothing limits this key. */
  readonly limit: number | null;
  readonly remaining: number | null;
  /** When the binding window ends (epoch ms). */
  readonly resetAt: number;
  /** Seconds until a refused request may be retried. */
  readonly retryAfter: number;
  readonly window: 'hour' | 'month';
  readonly requestsThisHour: number;
  readonly hourlyLimit: number | null;
  readonly requestsThisMonth: number;
  readonly monthlyLimit: number | null;
}

/**
 * Request limits per account (its plan) and per key (its own, lower limits). Counts live in memory, so a check
 * and its increment happen in one synchronous step and are exact under any concurrency; after a restart they
 * are rebuilt from the recorded usage (requests refused with 429 do not count).
 */
export class RateLimiter {
  private readonly counters = new Map<string, Counter>();
  private readonly loading = new Map<string, Promise<Counter>>();

  constructor(
    private readonly usage: UsageStore,
    private readonly plans: PlanTable,
    private readonly now: () => number = Date.now,
    private readonly options: RateLimiterOptions = {},
  ) {}

  /** Checks every limit that applies and, when all allow it, counts the request. */
  async admit(account: Account, key: ApiKeyRecord): Promise<RateDecision> {
    const [accountCounter, keyCounter] = await Promise.all([this.counter(account.id), this.counter(account.id, key.id)]);
    // Synchronous from here on: no other request can interleave between the check and the increment.
    const now = this.now();
    roll(accountCounter, now);
    roll(keyCounter, now);
    const plan = this.plans[account.tier];
    const limits = requestLimits(plan, key);
    const hourEnd = hourStart(now) + HOUR_MS;
    const monthEnd = nextMonthStart(now);
    const constraints: Constraint[] = [];
    const add = (limit: number | null, used: number, resetAt: number, window: 'hour' | 'month') => {
      if (limit !== null) constraints.push({ limit, used, resetAt, window });
    };
    add(plan.requestsPerHour, accountCounter.hourCount, hourEnd, 'hour');
    add(key.rateLimitPerHour, keyCounter.hourCount, hourEnd, 'hour');
    add(plan.monthlyRequests, accountCounter.monthCount, monthEnd, 'month');
    add(key.monthlyLimit, keyCounter.monthCount, monthEnd, 'month');

    const exceeded = constraints.filter((constraint) => constraint.used >= constraint.limit);
    const allowed = exceeded.length === 0;
    if (allowed) {
      accountCounter.hourCount++;
      accountCounter.monthCount++;
      keyCounter.hourCount++;
      keyCounter.monthCount++;
    }
    const binding = allowed
      ? pickTightest(constraints, allowed)
      : exceeded.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
    const usedNow = (c: Constraint) => c.used + (allowed ? 1 : 0);
    return {
      allowed,
      limit: binding?.limit ?? null,
      remaining: binding ? Math.max(0, binding.limit - usedNow(binding)) : null,
      resetAt: binding?.resetAt ?? hourEnd,
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil(((binding?.resetAt ?? hourEnd) - now) / 1000)),
      window: binding?.window ?? 'hour',
      requestsThisHour: accountCounter.hourCount,
      hourlyLimit: limits.hourly,
      requestsThisMonth: accountCounter.monthCount,
      monthlyLimit: limits.monthly,
    };
  }

  /** Counts extra work done for a request (e.g. re-processing turbo memories) without refusing it. */
  async consume(account: Account, key: ApiKeyRecord, units: number): Promise<void> {
    const [accountCounter, keyCounter] = await Promise.all([this.counter(account.id), this.counter(account.id, key.id)]);
    const now = this.now();
    for (const counter of [accountCounter, keyCounter]) {
      roll(counter, now);
      counter.hourCount += units;
      counter.monthCount += units;
    }
  }

  /** Requests the account made this calendar month (UTC), as the limits count them. */
  async monthlyRequests(accountId: string): Promise<number> {
    const counter = await this.counter(accountId);
    roll(counter, this.now());
    return counter.monthCount;
  }

  /** Drops an account's counters (after the account is removed). */
  forget(accountId: string): void {
    for (const id of [...this.counters.keys()]) if (id === accountId || id.startsWith(`${accountId}/`)) this.counters.delete(id);
  }

  private counter(accountId: string, keyId?: string): Promise<Counter> {
    const id = keyId ? `${accountId}/${keyId}` : accountId;
    const ready = this.counters.get(id);
    if (ready) {
      if (this.options.syncMs !== undefined && !ready.refreshing && this.now() - ready.loadedAt >= this.options.syncMs) this.refresh(ready, accountId, keyId);
      return Promise.resolve(ready);
    }
    let pending = this.loading.get(id);
    if (!pending) {
      pending = this.load(accountId, keyId).then(
        (counter) => {
          this.counters.set(id, counter);
          this.loading.delete(id);
          return counter;
        },
        (error: unknown) => {
          this.loading.delete(id);
          throw error;
        },
      );
      this.loading.set(id, pending);
    }
    return pending;
  }

  private async load(accountId: string, keyId?: string): Promise<Counter> {
    const now = this.now();
    const hour = hourStart(now);
    const month = monthStart(now);
    const [hourCount, monthCount] = await Promise.all([
      this.usage.countSince(accountId, hour, keyId),
      this.usage.countSince(accountId, month, keyId),
    ]);
    return { hour, hourCount, month, monthCount, loadedAt: now };
  }

  /** Folds in what other daemons counted (a request is never taken back: counts only go up). */
  private refresh(counter: Counter, accountId: string, keyId?: string): void {
    counter.refreshing = true;
    this.load(accountId, keyId)
      .then((stored) => {
        roll(counter, this.now());
        if (stored.hour === counter.hour) counter.hourCount = Math.max(counter.hourCount, stored.hourCount);
        if (stored.month === counter.month) counter.monthCount = Math.max(counter.monthCount, stored.monthCount);
        counter.loadedAt = stored.loadedAt;
      })
      // The store out of reach for a moment: keep counting locally and try again after syncMs.
      .catch(() => (counter.loadedAt = this.now()))
      .finally(() => (counter.refreshing = false));
  }
}

/** Starts a new window when the clock has moved past the counter's. */
function roll(counter: Counter, now: number): void {
  const hour = hourStart(now);
  if (counter.hour !== hour) {
    counter.hour = hour;
    counter.hourCount = 0;
  }
  const month = monthStart(now);
  if (counter.month !== month) {
    counter.month = month;
    counter.monthCount = 0;
  }
}

/** The hourly constraint with the fewest requests left (headers describe the hourly limit when there is one). */
function pickTightest(constraints: readonly Constraint[], allowed: boolean): Constraint | undefined {
  const left = (c: Constraint) => c.limit - c.used - (allowed ? 1 : 0);
  const hourly = constraints.filter((c) => c.window === 'hour');
  const pool = hourly.length > 0 ? hourly : constraints;
  return pool.reduce<Constraint | undefined>((best, c) => (best === undefined || left(c) < left(best) ? c : best), undefined);
}
