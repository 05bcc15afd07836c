import { describe, expect, it } from 'vitest';
import { aggregate } from '../../src/core/query/aggregate.js';
import type { MemoryView } from '../../src/core/query/fields.js';
import { parseDateValue, Zone } from '../../src/core/query/time.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('time zones (Intl only)', () => {
  it('buckets by local day, ISO week (Monday), month and year', () => {
    const utc = Zone.of();
    expect(utc.name).toBe('UTC');
    expect(utc.bucket(at('2025-01-01T12:00:00Z'), 'week')).toBe('2024-12-30');
    expect(utc.bucket(at('2025-01-05T23:59:59.999Z'), 'week')).toBe('2024-12-30');
    expect(utc.bucket(at('2025-01-06T00:00:00Z'), 'week')).toBe('2025-01-06');
    expect(utc.bucket(at('2025-02-28T23:00:00Z'), 'month')).toBe('2025-02-01');
    expect(utc.bucket(at('2025-12-31T23:59:59Z'), 'year')).toBe('2025-01-01');
    expect(utc.bucket(at('2024-02-29T10:00:00Z'), 'day')).toBe('2024-02-29');

    // Sunday evening in New York is already Monday in UTC.
    const newYork = Zone.of('America/New_York');
    expect(newYork.bucket(at('2025-01-06T03:00:00Z'), 'day')).toBe('2025-01-05');
    expect(newYork.bucket(at('2025-01-06T03:00:00Z'), 'week')).toBe('2024-12-30');
    expect(newYork.bucket(at('2025-01-01T03:00:00Z'), 'year')).toBe('2024-01-01');
    // Half-hour offsets: 00:30 on Monday in Kolkata is Sunday in UTC.
    expect(Zone.of('Asia/Kolkata').bucket(at('2025-01-05T19:00:00Z'), 'week')).toBe('2025-01-06');
  });

  it('knows the length of days around DST changes', () => {
    const berlin = Zone.of('Europe/Berlin');
    const spring = berlin.dayRange({ year: 2025, month: 3, day: 30 });
    expect([iso(spring.start), iso(spring.end)]).toEqual(['2025-03-29T23:00:00.000Z', '2025-03-30T21:59:59.999Z']);
    const autumn = berlin.dayRange({ year: 2025, month: 10, day: 26 });
    expect([iso(autumn.start), iso(autumn.end)]).toEqual(['2025-10-25T22:00:00.000Z', '2025-10-26T22:59:59.999Z']);
    expect(berlin.bucket(at('2025-03-30T21:59:59Z'), 'day')).toBe('2025-03-30');
    expect(berlin.bucket(at('2025-03-30T22:00:00Z'), 'day')).toBe('2025-03-31');
    // Santiago skips midnight when DST starts: that day begins at 01:00 local.
    expect(iso(Zone.of('America/Santiago').dayStart({ year: 2024, month: 9, day: 8 }))).toBe('2024-09-08T04:00:00.000Z');
    // Lord Howe moves by half an hour.
    expect(iso(Zone.of('Australia/Lord_Howe').dayStart({ year: 2025, month: 4, day: 7 }))).toBe('2025-04-06T13:30:00.000Z');
  });

  it('parses filter dates: a date is its whole day in the zone, a date-time one instant', () => {
    expect(parseDateValue('2025-01-31', Zone.of())).toEqual({ start: at('2025-01-31T00:00:00Z'), end: at('2025-02-01T00:00:00Z') - 1 });
    expect(parseDateValue('2025-01-31', Zone.of('America/New_York'))).toEqual({ start: at('2025-01-31T05:00:00Z'), end: at('2025-02-01T05:00:00Z') - 1 });
    expect(parseDateValue('2025-01-31T10:00:00+01:00', Zone.of())).toEqual({ start: at('2025-01-31T09:00:00Z'), end: at('2025-01-31T09:00:00Z') });
    expect(parseDateValue('2025-01-31t10:00:00.5z', Zone.of())).toEqual({ start: at('2025-01-31T10:00:00.500Z'), end: at('2025-01-31T10:00:00.500Z') });
    expect(parseDateValue(1_700_000_000_000, Zone.of())).toEqual({ start: 1_700_000_000_000, end: 1_700_000_000_000 });
    for (const bad of ['2025-02-29', '2025-13-01', '2025-1-1', '2025-01-31T10:00', '2025-01-31 10:00:00Z', '2025-01-31T25:00:00Z', 'tomorrow', '']) {
      expect(parseDateValue(bad, Zone.of()), bad).toBeNull();
    }
    expect(parseDateValue(1.5, Zone.of())).toBeNull();
    expect(parseDateValue(Number.MAX_SAFE_INTEGER, Zone.of())).toBeNull();
  });

  it('refuses unknown zones', () => {
    expect(() => Zone.of('Mars/Olympus_Mons')).toThrow(/Unknown time zone/);
  });
});

describe('aggregations', () => {
  const memory = (id: string, tags: string[], createdAt: string, updatedAt?: string): MemoryView => ({
    id,
    tags,
    createdAt: at(createdAt),
    updatedAt: updatedAt ? at(updatedAt) : null,
  });
  const memories = [
    memory('a', ['work', 'acme'], '2025-01-06T10:00:00Z'),
    memory('b', ['work'], '2025-01-12T23:00:00Z', '2025-02-01T00:00:00Z'),
    memory('c', ['home', 'acme', 'b-tag'], '2025-01-13T00:00:00Z'),
    memory('d', [], '2024-12-31T23:30:00Z'),
  ];

  it('counts tags over every memory, most frequent first', () => {
    const result = aggregate(memories, { countByTag: true }, Zone.of());
    expect(result).toEqual({ countByTag: { acme: 2, work: 2, 'b-tag': 1, home: 1 } });
    expect(Object.keys(result.countByTag ?? {})).toEqual(['acme', 'work', 'b-tag', 'home']);
  });

  it('builds date histograms in order, leaving out empty buckets and missing dates', () => {
    expect(aggregate(memories, { dateHistogram: { field: 'createdAt', interval: 'week' } }, Zone.of()).dateHistogram).toEqual([
      { date: '2024-12-30', count: 1 },
      { date: '2025-01-06', count: 2 },
      { date: '2025-01-13', count: 1 },
    ]);
    // In Berlin, 2024-12-31T23:30Z is already 2025; 2025-01-12T23:00Z is already Monday the 13th.
    expect(aggregate(memories, { dateHistogram: { field: 'createdAt', interval: 'year' } }, Zone.of('Europe/Berlin')).dateHistogram).toEqual([
      { date: '2025-01-01', count: 4 },
    ]);
    expect(aggregate(memories, { dateHistogram: { field: 'createdAt', interval: 'week' } }, Zone.of('Europe/Berlin')).dateHistogram).toEqual([
      { date: '2024-12-30', count: 1 },
      { date: '2025-01-06', count: 1 },
      { date: '2025-01-13', count: 2 },
    ]);
    expect(aggregate(memories, { dateHistogram: { field: 'updatedAt', interval: 'day' } }, Zone.of()).dateHistogram).toEqual([
      { date: '2025-02-01', count: 1 },
    ]);
    expect(aggregate([], { countByTag: true, dateHistogram: { field: 'createdAt', interval: 'month' } }, Zone.of())).toEqual({
      countByTag: {},
      dateHistogram: [],
    });
  });
});
