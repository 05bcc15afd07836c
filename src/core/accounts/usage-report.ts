import { DAY_MS, Zone } from '../query/time.js';
import type { Account, ApiKeyRecord, KeyType, UsageEvent } from '../types.js';

export const USAGE_PERIODS = ['day', 'week', 'month', 'all'] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];
export const USAGE_BREAKDOWNS = ['endpoint', 'day', 'key'] as const;
export type UsageBreakdown = (typeof USAGE_BREAKDOWNS)[number];

/** Daily rows are filled with zero days only over this many days (an `all` period of years stays sparse). */
const MAX_FILLED_DAYS = 400;

export interface UsageSummary {
  readonly totalRequests: number;
  readonly successfulRequests: number;
  readonly failedRequests: number;
  readonly averageLatencyMs: number;
}

export interface EndpointUsage {
  readonly endpoint: string;
  readonly method: string;
  readonly requests: number;
  readonly percentage: number;
  readonly avgLatencyMs: number;
}

export interface DailyUsage {
  readonly date: string;
  readonly requests: number;
  readonly successful: number;
  readonly failed: number;
}

export interface KeyUsage {
  readonly keyId: string;
  readonly name: string;
  readonly type: KeyType;
  readonly requests: number;
  readonly successful: number;
  readonly failed: number;
  readonly avgLatencyMs: number;
}

export interface UsageStatistics {
  readonly period: UsagePeriod;
  readonly startDate: number;
  readonly endDate: number;
  readonly summary: UsageSummary;
  readonly byEndpoint?: EndpointUsage[];
  readonly daily?: DailyUsage[];
  readonly byKey?: KeyUsage[];
}

/**
 * The start of a usage period in the account's time zone: `day` is today since local midnight, `week` the
 * last 7 local days including today, `month` the last 30, `all` since the account was created.
 */
export function periodStart(period: UsagePeriod, account: Account, now: number, zone: Zone): number {
  if (period === 'all') return Math.min(account.createdAt, now);
  const days = period === 'day' ? 1 : period === 'week' ? 7 : 30;
  const first = new Date((zone.localDay(now) - (days - 1)) * DAY_MS);
  return zone.dayStart({ year: first.getUTCFullYear(), month: first.getUTCMonth() + 1, day: first.getUTCDate() });
}

const isSuccess = (status: number) => status < 400;
const round = (value: number) => Math.round(value * 100) / 100;
const percent = (part: number, whole: number) => (whole === 0 ? 0 : round((part / whole) * 100));

/** Sums events into the spec's usage statistics. Successful means 2xx/3xx, failed 4xx/5xx. */
export function summarizeUsage(
  events: readonly UsageEvent[],
  options: {
    period: UsagePeriod;
    start: number;
    end: number;
    zone: Zone;
    breakdown?: UsageBreakdown | undefined;
    keys: readonly ApiKeyRecord[];
  },
): UsageStatistics {
  let successful = 0;
  let latency = 0;
  for (const event of events) {
    if (isSuccess(event.status)) successful++;
    latency += event.latencyMs;
  }
  const summary: UsageSummary = {
    totalRequests: events.length,
    successfulRequests: successful,
    failedRequests: events.length - successful,
    averageLatencyMs: events.length === 0 ? 0 : round(latency / events.length),
  };
  const base = { period: options.period, startDate: options.start, endDate: options.end, summary };
  if (options.breakdown === 'endpoint') return { ...base, byEndpoint: byEndpoint(events) };
  if (options.breakdown === 'day') return { ...base, daily: daily(events, options.start, options.end, options.zone) };
  if (options.breakdown === 'key') return { ...base, byKey: byKey(events, options.keys) };
  return base;
}

function byEndpoint(events: readonly UsageEvent[]): EndpointUsage[] {
  const groups = new Map<string, { method: string; endpoint: string; requests: number; latency: number }>();
  for (const event of events) {
    const id = `${event.method} ${event.endpoint}`;
    const group = groups.get(id) ?? { method: event.method, endpoint: event.endpoint, requests: 0, latency: 0 };
    group.requests++;
    group.latency += event.latencyMs;
    groups.set(id, group);
  }
  return [...groups.values()]
    .sort((a, b) => b.requests - a.requests || a.endpoint.localeCompare(b.endpoint))
    .map((group) => ({
      endpoint: group.endpoint,
      method: group.method,
      requests: group.requests,
      percentage: percent(group.requests, events.length),
      avgLatencyMs: round(group.latency / group.requests),
    }));
}

function daily(events: readonly UsageEvent[], start: number, end: number, zone: Zone): DailyUsage[] {
  const days = new Map<string, { requests: number; successful: number; failed: number }>();
  const firstDay = zone.localDay(start);
  const lastDay = zone.localDay(end);
  if (lastDay - firstDay < MAX_FILLED_DAYS) {
    for (let day = firstDay; day <= lastDay; day++) {
      days.set(new Date(day * DAY_MS).toISOString().slice(0, 10), { requests: 0, successful: 0, failed: 0 });
    }
  }
  for (const event of events) {
    const date = zone.bucket(event.at, 'day');
    const row = days.get(date) ?? { requests: 0, successful: 0, failed: 0 };
    row.requests++;
    if (isSuccess(event.status)) row.successful++;
    else row.failed++;
    days.set(date, row);
  }
  return [...days.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([date, row]) => ({ date, ...row }));
}

function byKey(events: readonly UsageEvent[], keys: readonly ApiKeyRecord[]): KeyUsage[] {
  const known = new Map(keys.map((key) => [key.id, key]));
  const groups = new Map<string, { type: KeyType; requests: number; successful: number; latency: number }>();
  for (const event of events) {
    const group = groups.get(event.keyId) ?? { type: event.keyType, requests: 0, successful: 0, latency: 0 };
    group.requests++;
    if (isSuccess(event.status)) group.successful++;
    group.latency += event.latencyMs;
    groups.set(event.keyId, group);
  }
  return [...groups.entries()]
    .sort(([, a], [, b]) => b.requests - a.requests)
    .map(([keyId, group]) => ({
      keyId,
      name: known.get(keyId)?.name ?? '(deleted key)',
      type: group.type,
      requests: group.requests,
      successful: group.successful,
      failed: group.requests - group.successful,
      avgLatencyMs: round(group.latency / group.requests),
    }));
}
