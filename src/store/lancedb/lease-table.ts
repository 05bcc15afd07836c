import { Field, Float64, Schema, Utf8 } from 'apache-arrow';
import type { LeaseStore } from '../../core/cluster/leases.js';
import { and, eq, literal, lt, or } from './predicate.js';
import type { TableWriter } from './table-writer.js';

/** One row per lease name (rarely two, when two daemons created it at once: both rows are updated together). */
export const leasesSchema = new Schema([
  new Field('name', new Utf8(), false),
  new Field('holder', new Utf8(), false),
  new Field('expires_at', new Float64(), false),
]);

/**
 * Leases as conditional updates: `UPDATE leases SET holder, expires_at WHERE name = ? AND (free OR mine)`.
 * LanceDB commits an update only on top of the latest version and re-evaluates the condition there when
 * another daemon committed first (measured on Azurite: the second of two racing updates updated 0 rows),
 * so at most one daemon gets a row count > 0.
 */
export class LanceLeaseStore implements LeaseStore {
  constructor(private readonly writer: TableWriter) {}

  async tryAcquire(name: string, holder: string, until: number, now: number): Promise<boolean> {
    if (await this.update(name, holder, until, now)) return true;
    // No row yet for this name: create it free (two daemons may both insert; then both rows move together).
    const exists = (await this.writer.table.countRows(eq('name', name))) > 0;
    if (exists) return false;
    await this.writer.exclusive((table) => table.mergeInsert('name').whenNotMatchedInsertAll().execute([{ name, holder: '', expires_at: 0 }]));
    return this.update(name, holder, until, now);
  }

  private async update(name: string, holder: string, until: number, now: number): Promise<boolean> {
    const where = and(eq('name', name), or(lt('expires_at', now), eq('holder', holder)));
    const result = await this.writer.exclusive((table) =>
      table.update({ where, valuesSql: { holder: literal(holder), expires_at: literal(until) } }),
    );
    return result.rowsUpdated > 0;
  }
}
