import { Field, Float64, Schema, Utf8 } from 'apache-arrow';
import type { LeaseStore } from '../../core/cluster/leases.js';
import { and, eq, literal, lt, or } from './predicate.js';
import type { TableWriter } from './table-writer.js';

/** One row per lease name, and the registry row (see REGISTRY). */
export const leasesSchema = new Schema([
  new Field('name', new Utf8(), false),
  new Field('holder', new Utf8(), false),
  new Field('expires_at', new Float64(), false),
]);

/**
 * The row every lease creation also updates: two daemons creating the same lease at once then touch one
 * common row, so LanceDB sees a conflict and runs the second creation again, which finds the lease row and
 * inserts nothing. (Plain merge-inserts of one new key from two handles both commit: measured, two rows.)
 */
const REGISTRY = '__leases';

/**
 * Leases as conditional updates: `UPDATE leases SET holder, expires_at WHERE name = ? AND (free OR mine)`.
 * LanceDB commits an update only on top of the latest version and re-evaluates the condition there when
 * another daemon committed first (measured on Azurite: the second of two racing updates updated 0 rows),
 * so at most one daemon gets a row count > 0.
 */
export class LanceLeaseStore implements LeaseStore {
  private registered = false;

  constructor(private readonly writer: TableWriter) {}

  async tryAcquire(name: string, holder: string, until: number, now: number): Promise<boolean> {
    if (await this.update(name, holder, until, now)) return true;
    if ((await this.writer.table.countRows(eq('name', name))) > 0) return false;
    await this.create(name);
    return this.update(name, holder, until, now);
  }

  async holderOf(name: string): Promise<{ holder: string; expiresAt: number } | null> {
    const [row] = (await this.writer.table.query().where(eq('name', name)).limit(1).toArray()) as { holder: string; expires_at: number }[];
    return row ? { holder: String(row.holder), expiresAt: Number(row.expires_at) } : null;
  }

  /** Creates the lease row (free) unless it exists, serialised with every other creation by the registry row. */
  private async create(name: string): Promise<void> {
    if (!this.registered) {
      // Once per process: a fresh store gets its registry row (two daemons may both add one; then every
      // creation updates both, which still makes any two creations conflict).
      if ((await this.writer.table.countRows(eq('name', REGISTRY))) === 0) await this.writer.append([{ name: REGISTRY, holder: '', expires_at: 0 }]);
      this.registered = true;
    }
    await this.writer.exclusive((table) =>
      table
        .mergeInsert('name')
        .whenMatchedUpdateAll({ where: `target.${eq('name', REGISTRY)}` })
        .whenNotMatchedInsertAll()
        .execute([
          { name: REGISTRY, holder: '', expires_at: Date.now() },
          { name, holder: '', expires_at: 0 },
        ]),
    );
  }

  private async update(name: string, holder: string, until: number, now: number): Promise<boolean> {
    const where = and(eq('name', name), or(lt('expires_at', now), eq('holder', holder)));
    const result = await this.writer.exclusive((table) =>
      table.update({ where, valuesSql: { holder: literal(holder), expires_at: literal(until) } }),
    );
    return result.rowsUpdated > 0;
  }
}
