/**
 * Importers turn files people bring into memory lines of the export format, without ids: the daemon derives
 * each id from createdAt, space and content, so running an importer again finds what it imported before
 * instead of saving it twice. They never talk to the daemon; `mem import` sends what they return.
 */

/** A record to send and where it came from (for error messages). */
export interface SourcedRecord {
  readonly record: Record<string, unknown>;
  /** e.g. `notes/a.md`, `item 3`, `line 12`. */
  readonly origin: string;
}

/**
 * A time people write (ISO 8601, a date, epoch seconds or milliseconds) as ISO 8601; undefined when there
 * is none or it cannot be read (the daemon then dates the memory now).
 */
export function isoTime(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // Epoch seconds until the year 5138; larger numbers are milliseconds.
    return new Date(value < 1e11 ? value * 1000 : value).toISOString();
  }
  if (typeof value !== 'string' || !value.trim()) return undefined;
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  if (/^\d+(\.\d+)?$/.test(text)) return isoTime(Number(text));
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
