import type { DateField, MemoryField, MemoryView } from './fields.js';
import type { Interval, Zone } from './time.js';

export interface AggregateRequest {
  readonly countByTag?: boolean | undefined;
  readonly dateHistogram?: { readonly field: DateField; readonly interval: Interval } | undefined;
}

export interface HistogramBucket {
  readonly date: string;
  readonly count: number;
}

export interface Aggregations {
  /** tag -> number of matching memories carrying it, most frequent first. */
  countByTag?: Record<string, number>;
  /** Non-empty buckets in date order; `date` is the local date the bucket starts on. */
  dateHistogram?: HistogramBucket[];
}

/** The fields aggregations read from every matching memory. */
export function aggregateFields(request: AggregateRequest | undefined): MemoryField[] {
  const fields: MemoryField[] = [];
  if (request?.countByTag) fields.push('tags');
  if (request?.dateHistogram) fields.push(request.dateHistogram.field);
  return fields;
}

export function wantsAggregations(request: AggregateRequest | undefined): boolean {
  return aggregateFields(request).length > 0;
}

/**
 * Aggregations over every matching memory (never just the page). Histogram buckets are days, ISO weeks
 * (starting Monday), months or years of the local calendar of `zone`; memories without the date (updatedAt
 * never set) are not counted; empty buckets are left out.
 */
export function aggregate(memories: readonly MemoryView[], request: AggregateRequest, zone: Zone): Aggregations {
  const result: Aggregations = {};
  if (request.countByTag) {
    const counts = new Map<string, number>();
    for (const memory of memories) for (const tag of memory.tags ?? []) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    result.countByTag = Object.fromEntries(
      [...counts].sort(([tagA, countA], [tagB, countB]) => countB - countA || (tagA < tagB ? -1 : tagA > tagB ? 1 : 0)),
    );
  }
  if (request.dateHistogram) {
    const { field, interval } = request.dateHistogram;
    const counts = new Map<string, number>();
    for (const memory of memories) {
      const value = memory[field];
      if (value === null || value === undefined) continue;
      const bucket = zone.bucket(value, interval);
      counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    }
    result.dateHistogram = [...counts]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([date, count]) => ({ date, count }));
  }
  return result;
}
