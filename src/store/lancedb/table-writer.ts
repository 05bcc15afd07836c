import type { Table } from '@lancedb/lancedb';

type Row = Record<string, unknown>;

/**
 * Serialises the writes to one table (LanceDB commits each write as a new version; concurrent
 * updates/deletes of one table can conflict) and group-commits appends: rows added while a write is in
 * flight are appended together in the next commit, so N concurrent saves cost ~1 commit, not N.
 */
export class TableWriter {
  private tail: Promise<unknown> = Promise.resolve();
  private pendingRows: { rows: Row[]; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushScheduled = false;
  /** Commits so far, the rows appended and the time they took (ms): GET /v1/status reports the rates. */
  readonly commits = { count: 0, rows: 0, ms: 0 };

  /** @param onCommit called after each write, so the store can schedule maintenance. */
  constructor(
    readonly table: Table,
    private readonly onCommit: () => void = () => undefined,
  ) {}

  /** Runs `work` after every earlier write to this table has finished. */
  exclusive<T>(work: (table: Table) => Promise<T>): Promise<T> {
    const run = this.tail.then(async () => {
      const started = performance.now();
      try {
        return await work(this.table);
      } finally {
        this.commits.count += 1;
        this.commits.ms += performance.now() - started;
      }
    }).finally(this.onCommit);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Appends rows; resolves once they are committed to disk. */
  append(rows: Row[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.pendingRows.push({ rows, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        void this.exclusive(async (table) => {
          this.flushScheduled = false;
          const batch = this.pendingRows.splice(0);
          for (const entry of batch) this.commits.rows += entry.rows.length;
          try {
            await table.add(batch.flatMap((entry) => entry.rows));
            for (const entry of batch) entry.resolve();
          } catch (error) {
            for (const entry of batch) entry.reject(error);
          }
        });
      }
    });
  }
}
