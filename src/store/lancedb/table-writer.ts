import type { Table } from '@lancedb/lancedb';

type Row = Record<string, unknown>;

const CONFLICT_ATTEMPTS = 8;

/**
 * LanceDB's words for a commit another writer got in first ("Retryable commit conflict", "preempted"), and
 * for one that no write on this handle's version can follow ("Incompatible transaction ... concurrent
 * transaction Overwrite"): two daemons starting on one fresh store may both create a table, and the later
 * create lands as an overwrite on top of the first.
 */
export function isCommitConflict(error: unknown): boolean {
  return /commit conflict|conflict for version|preempted|retryable|too many concurrent writers/i.test(String(error)) || isIncompatible(error);
}

function isIncompatible(error: unknown): boolean {
  return /incompatible transaction/i.test(String(error));
}

async function retryConflicts<T>(table: Table, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= CONFLICT_ATTEMPTS || !isCommitConflict(error)) throw error;
      // After an incompatible transaction the handle stays on its version and every retry would fail alike.
      if (isIncompatible(error)) await table.checkoutLatest();
      // Jittered backoff: daemons that collided once should not collide again in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}

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

  /**
   * @param onCommit called after each write, so the store can schedule maintenance.
   * @param onChange called as each write other than an append starts and again as it ends (an append only
   *   adds rows): what the process keeps of the table's rows is stale from the first call on.
   * @param onAppended called with the rows of each append once they are committed, before the appends resolve.
   */
  constructor(
    readonly table: Table,
    private readonly onCommit: () => void = () => undefined,
    private readonly onChange: () => void = () => undefined,
    private readonly onAppended: (rows: readonly Row[]) => void = () => undefined,
  ) {}

  /**
   * Runs `work` after every earlier write to this table has finished. A commit conflict (another process
   * committed to the table first, which LanceDB could not rebase onto) runs `work` again: every caller's work
   * is an idempotent write (append, merge-insert, update or delete by predicate).
   */
  exclusive<T>(work: (table: Table) => Promise<T>): Promise<T> {
    return this.write(work, true);
  }

  /**
   * As exclusive, for work that rewrites the table's files but no row's values (a compaction): what the
   * process keeps of the rows stays valid, so onChange is not called.
   */
  rewrite<T>(work: (table: Table) => Promise<T>): Promise<T> {
    return this.write(work, false);
  }

  private write<T>(work: (table: Table) => Promise<T>, changes: boolean): Promise<T> {
    const run = this.tail.then(async () => {
      const started = performance.now();
      if (changes) this.onChange();
      try {
        return await retryConflicts(this.table, () => work(this.table));
      } finally {
        if (changes) this.onChange();
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
        void this.write(async (table) => {
          this.flushScheduled = false;
          const batch = this.pendingRows.splice(0);
          for (const entry of batch) this.commits.rows += entry.rows.length;
          try {
            const rows = batch.flatMap((entry) => entry.rows);
            await table.add(rows);
            this.onAppended(rows);
            for (const entry of batch) entry.resolve();
          } catch (error) {
            for (const entry of batch) entry.reject(error);
          }
        }, false);
      }
    });
  }
}
