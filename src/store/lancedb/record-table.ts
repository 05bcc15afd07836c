import { and, eq, inList, type Predicate } from './predicate.js';
import type { TableWriter } from './table-writer.js';

type Row = Record<string, unknown>;

/** Typed access to a table of small records keyed by `id` (accounts, keys, pending saves, jobs). */
export class RecordTable<T> {
  constructor(
    private readonly writer: TableWriter,
    private readonly toRow: (record: T) => Row,
    private readonly fromRow: (row: Row) => T,
  ) {}

  insert(record: T): Promise<void> {
    return this.writer.append([this.toRow(record)]);
  }

  /** Insert or replace by id. */
  upsert(record: T): Promise<void> {
    return this.writer.exclusive(async (table) => {
      await table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute([this.toRow(record)]);
    });
  }

  async first(where: Predicate): Promise<T | null> {
    const rows = await this.writer.table.query().where(where).limit(1).toArray();
    return rows[0] ? this.fromRow(rows[0] as Row) : null;
  }

  /** An account's record by id: other accounts' ids are simply not found. */
  owned(accountId: string, id: string): Promise<T | null> {
    return this.first(and(eq('account_id', accountId), eq('id', id)));
  }

  async all(where?: Predicate, newestFirst?: { limit: number }): Promise<T[]> {
    let query = this.writer.table.query();
    if (where) query = query.where(where);
    if (newestFirst) query = query.orderBy({ columnName: 'created_at', ascending: false }).limit(newestFirst.limit);
    return (await query.toArray()).map((row) => this.fromRow(row as Row));
  }

  unfinished(): Promise<T[]> {
    return this.all(inList('status', ['pending', 'processing']));
  }

  /** Deletes an account's record; false when there was none. */
  deleteOwned(accountId: string, id: string): Promise<boolean> {
    return this.writer.exclusive(async (table) => {
      const where = and(eq('account_id', accountId), eq('id', id));
      if ((await table.countRows(where)) === 0) return false;
      await table.delete(where);
      return true;
    });
  }
}
