import type { Account, ApiKeyRecord } from '../types.js';

export type Tier = Account['tier'];
export const TIERS: readonly Tier[] = ['free', 'pro', 'enterprise'];

/** A plan's limits; null means unlimited (shown as -1 in the API, see present.ts). */
export interface PlanLimits {
  readonly requestsPerHour: number | null;
  readonly monthlyRequests: number | null;
  readonly maxStorageMb: number | null;
  /** Not in the spec's table: documented in the README (free 10,000, pro 100,000, enterprise unlimited). */
  readonly maxMemories: number | null;
  readonly ingestItemsPerRequest: number;
  readonly concurrentJobs: number | null;
}

export type PlanTable = Readonly<Record<Tier, PlanLimits>>;

/** The spec's Limits table. */
export const PLANS: PlanTable = {
  free: {
    requestsPerHour: 100,
    monthlyRequests: 10_000,
    maxStorageMb: 1024,
    maxMemories: 10_000,
    ingestItemsPerRequest: 100,
    concurrentJobs: 1,
  },
  pro: {
    requestsPerHour: 1_000,
    monthlyRequests: 100_000,
    maxStorageMb: 10 * 1024,
    maxMemories: 100_000,
    ingestItemsPerRequest: 1_000,
    concurrentJobs: 5,
  },
  enterprise: {
    requestsPerHour: null,
    monthlyRequests: null,
    maxStorageMb: null,
    maxMemories: null,
    ingestItemsPerRequest: 10_000,
    concurrentJobs: null,
  },
};

/** The lower of two limits, where null is unlimited. */
export function lower(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/** A key's own hourly and monthly limits apply when they are lower than its plan's. */
export function requestLimits(plan: PlanLimits, key: ApiKeyRecord): { hourly: number | null; monthly: number | null } {
  return { hourly: lower(plan.requestsPerHour, key.rateLimitPerHour), monthly: lower(plan.monthlyRequests, key.monthlyLimit) };
}
