import { describe, expect, it } from 'vitest';
import { PLANS } from '../../src/core/accounts/plans.js';
import { RateLimiter } from '../../src/core/accounts/rate-limiter.js';
import type { UsageStore } from '../../src/core/ports.js';
import type { Account, ApiKeyRecord } from '../../src/core/types.js';

/** Two daemons' limiters over one recorded usage: each folds in what the other counted. */
const account: Account = {
  id: 'acc_1',
  email: '',
  name: 'A',
  company: '',
  tier: 'free',
  createdAt: 0,
  settings: { defaultSpace: '', timezone: 'UTC', language: 'en' },
  isOwner: false,
};
const key: ApiKeyRecord = {
  id: 'key_1',
  accountId: 'acc_1',
  name: 'k',
  type: 'live',
  hash: 'h',
  last4: 'abcd',
  createdAt: 0,
  expiresAt: null,
  lastUsedAt: null,
  rateLimitPerHour: null,
  monthlyLimit: null,
  readOnly: false,
};

function sharedUsage(): UsageStore & { recorded: number } {
  const store = {
    recorded: 0,
    append: async () => undefined,
    events: async () => [],
    countSince: async () => store.recorded,
  };
  return store;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('rate limits across daemons', () => {
  it('counts of other daemons are folded in after syncMs, and the limit holds', async () => {
    let now = Date.UTC(2026, 10, 24, 12, 0, 0);
    const usage = sharedUsage();
    const limiter = new RateLimiter(usage, PLANS, () => now, { syncMs: 2000 });
    const limit = PLANS.free.requestsPerHour as number;
    expect((await limiter.admit(account, key)).allowed).toBe(true);
    // The recorded usage reaches the limit: this daemon's first request and the other daemons' ones.
    usage.recorded = limit;
    now += 1000;
    expect((await limiter.admit(account, key)).requestsThisHour).toBe(2); // not yet synced
    now += 1500;
    await limiter.admit(account, key); // starts the background refresh
    await settle();
    const refused = await limiter.admit(account, key);
    expect(refused.allowed).toBe(false);
    expect(refused.requestsThisHour).toBe(limit);
  });

  it('never lowers a count (its own unrecorded requests stay counted) and without syncMs never re-reads', async () => {
    let now = Date.UTC(2026, 10, 24, 12, 0, 0);
    const usage = sharedUsage();
    const shared = new RateLimiter(usage, PLANS, () => now, { syncMs: 10 });
    for (let i = 0; i < 5; i++) await shared.admit(account, key);
    now += 100;
    await shared.admit(account, key);
    await settle();
    expect((await shared.admit(account, key)).requestsThisHour).toBe(7);

    const alone = new RateLimiter(usage, PLANS, () => now);
    await alone.admit(account, key);
    usage.recorded = 50;
    now += 60_000;
    await alone.admit(account, key);
    await settle();
    expect((await alone.admit(account, key)).requestsThisHour).toBe(3);
  });
});
