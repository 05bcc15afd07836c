import type { MemoryRecord } from '../../core/types.js';

/**
 * Memory rows read by id, kept in the process: every search reads its hits' rows from the memories table,
 * and that query costs LanceDB a scan of every fragment written since the last compaction, whatever it
 * finds (bench/README.md, issue #23). Most searches of a person's store come back to the same memories.
 *
 * Only this process's writes are seen, so a store shared by several daemons does not use it. Any change to
 * the memories table other than an append (an append only adds rows under new ids) empties it, before the
 * change and again after it, and a read that began before an emptying does not fill it: its rows may be
 * older than the change (the epoch each read starts from says so).
 */
export class MemoryRowCache {
  /** In the order of last use: the first entry is the next to go. */
  private readonly entries = new Map<string, { readonly record: MemoryRecord; readonly bytes: number }>();
  private bytes = 0;
  private generation = 0;

  constructor(private readonly maxBytes: number) {}

  /** Taken before a read; remember() keeps the read's rows only if nothing changed since. */
  epoch(): number {
    return this.generation;
  }

  get(accountId: string, id: string): MemoryRecord | undefined {
    const key = keyOf(accountId, id);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.record;
  }

  remember(accountId: string, records: readonly MemoryRecord[], epoch: number): void {
    if (epoch !== this.generation) return;
    for (const record of records) {
      const key = keyOf(accountId, record.id);
      const bytes = sizeOf(record);
      if (bytes > this.maxBytes) continue;
      const known = this.entries.get(key);
      if (known) {
        this.entries.delete(key);
        this.bytes -= known.bytes;
      }
      this.entries.set(key, { record, bytes });
      this.bytes += bytes;
    }
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
  }

  /** The memories table is about to change, or has changed. */
  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}

function keyOf(accountId: string, id: string): string {
  return `${accountId}\u0000${id}`;
}

/** Roughly what a record holds in memory: its strings at two bytes a character, and a little more. */
function sizeOf(record: MemoryRecord): number {
  let chars = record.content.length + record.title.length + record.description.length + record.context.length + record.author.length;
  for (const tag of record.tags) chars += tag.length;
  chars += JSON.stringify(record.metadata).length;
  return 2 * chars + 256;
}
