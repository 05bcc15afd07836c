import { MemError } from '../../errors.js';

/**
 * Calendar arithmetic in one IANA time zone, for date-only filter values (a whole day) and histogram
 * buckets. Intl is the only source of zone offsets (no tz database of our own); since asking Intl costs a
 * few microseconds, offsets are cached per UTC day: when a day starts and ends on the same offset, every
 * instant of it has that offset (zones change offset at most once a day), otherwise Intl is asked per
 * instant. UTC skips all of it.
 */
export const DAY_MS = 86_400_000;

export type Interval = 'day' | 'week' | 'month' | 'year';

export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

export class Zone {
  readonly name: string;
  private readonly formatter: Intl.DateTimeFormat | null;
  private readonly dayOffsets = new Map<number, number | null>();
  private readonly buckets: Record<Interval, Map<number, string>> = {
    day: new Map(),
    week: new Map(),
    month: new Map(),
    year: new Map(),
  };

  private constructor(name: string, formatter: Intl.DateTimeFormat | null) {
    this.name = name;
    this.formatter = formatter;
  }

  /** A zone by IANA name ('UTC', 'Europe/Berlin', ...); an unknown name is a VALIDATION_ERROR. */
  static of(name = 'UTC'): Zone {
    if (name === 'UTC' || name === 'Etc/UTC') return new Zone('UTC', null);
    try {
      const formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: name,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
      return new Zone(formatter.resolvedOptions().timeZone, formatter);
    } catch {
      throw new MemError('VALIDATION_ERROR', `Unknown time zone "${name}"; use an IANA name such as Europe/Berlin.`);
    }
  }

  /** Milliseconds to add to a UTC instant to get the wall-clock time of this zone. */
  offset(ms: number): number {
    if (!this.formatter) return 0;
    const day = Math.floor(ms / DAY_MS);
    let cached = this.dayOffsets.get(day);
    if (cached === undefined) {
      const start = this.askOffset(day * DAY_MS);
      cached = start === this.askOffset(day * DAY_MS + DAY_MS - 1) ? start : null;
      this.dayOffsets.set(day, cached);
    }
    return cached ?? this.askOffset(ms);
  }

  private askOffset(ms: number): number {
    const parts: Record<string, number> = {};
    for (const part of (this.formatter as Intl.DateTimeFormat).formatToParts(ms)) {
      if (part.type !== 'literal') parts[part.type] = Number(part.value);
    }
    const wall = Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
    return wall - (ms - (((ms % 1000) + 1000) % 1000));
  }

  /** The local calendar day of an instant, as days since 1970-01-01. */
  localDay(ms: number): number {
    return Math.floor((ms + this.offset(ms)) / DAY_MS);
  }

  /** The first instant of a local calendar day (midnight, or the end of a DST gap that swallows it). */
  dayStart(date: CivilDate): number {
    const day = Math.floor(Date.UTC(date.year, date.month - 1, date.day) / DAY_MS);
    if (!this.formatter) return day * DAY_MS;
    // Offsets lie within ±15 h: search that window for the first instant whose local day is `day`.
    let low = day * DAY_MS - 15 * 3_600_000;
    let high = day * DAY_MS + 15 * 3_600_000;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (this.localDay(middle) >= day) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** The whole local day as an inclusive range of instants. */
  dayRange(date: CivilDate): { start: number; end: number } {
    const next = new Date(Date.UTC(date.year, date.month - 1, date.day + 1));
    const start = this.dayStart(date);
    const end = this.dayStart({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() }) - 1;
    return { start, end };
  }

  /** The local date (YYYY-MM-DD) on which the bucket holding `ms` starts; weeks are ISO weeks (Monday). */
  bucket(ms: number, interval: Interval): string {
    const day = this.localDay(ms);
    const cached = this.buckets[interval].get(day);
    if (cached !== undefined) return cached;
    const date = new Date(day * DAY_MS);
    let start: number;
    if (interval === 'day') start = day * DAY_MS;
    else if (interval === 'week') start = (day - ((date.getUTCDay() + 6) % 7)) * DAY_MS;
    else if (interval === 'month') start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    else start = Date.UTC(date.getUTCFullYear(), 0, 1);
    const label = new Date(start).toISOString().slice(0, 10);
    this.buckets[interval].set(day, label);
    return label;
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** A calendar date that exists (V8's Date.parse rolls 2024-02-30 over to March 1st; we refuse it). */
function civil(year: string, month: string, day: string): CivilDate | null {
  const date = { year: Number(year), month: Number(month), day: Number(day) };
  const check = new Date(Date.UTC(date.year, date.month - 1, date.day));
  return check.getUTCFullYear() === date.year && check.getUTCMonth() === date.month - 1 && check.getUTCDate() === date.day
    ? date
    : null;
}

/**
 * A date filter value as an inclusive range of instants: an ISO 8601 date-time with a zone (Z or ±hh:mm)
 * or epoch milliseconds is one instant; a date without a time is that whole day in `zone`.
 * Null when the value is none of these.
 */
export function parseDateValue(value: string | number, zone: Zone): { start: number; end: number } | null {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && Math.abs(value) <= 8.64e15 ? { start: value, end: value } : null;
  }
  const dateOnly = DATE.exec(value);
  if (dateOnly) {
    const date = civil(dateOnly[1] ?? '', dateOnly[2] ?? '', dateOnly[3] ?? '');
    return date ? zone.dayRange(date) : null;
  }
  const dateTime = DATE_TIME.exec(value);
  if (!dateTime) return null;
  if (!civil(dateTime[1] ?? '', dateTime[2] ?? '', dateTime[3] ?? '')) return null;
  if (Number(dateTime[4]) > 23 || Number(dateTime[5]) > 59 || Number(dateTime[6] ?? 0) > 59) return null;
  const ms = Date.parse(value.toUpperCase());
  return Number.isFinite(ms) ? { start: ms, end: ms } : null;
}
