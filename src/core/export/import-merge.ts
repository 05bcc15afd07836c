import { applySupersession, deriveEntity } from '../knowledge/derive.js';
import type { EntityContributions, EntityRecord, FactRecord } from '../knowledge/types.js';

/**
 * What an import keeps of the knowledge an account holds. A file speaks for the memories its records name:
 * an entity's contributions and a fact's or an edge's supports are merged by memory, the file's winning,
 * and what the account's other memories contribute stays. Without this, re-importing an export into the
 * account it came from dropped what memories saved since (or outside a filtered export) contributed.
 */

/** An entity as an import compares and writes it: with the contributions it is derived from. */
export interface EntityWithContributions {
  readonly id: string;
  readonly entity: EntityRecord;
  readonly documents: EntityContributions;
}

/** `record` with the stored contributions of memories it does not name, derived again when there are any. */
export function withStoredContributions(record: EntityWithContributions, stored: EntityWithContributions | undefined): EntityWithContributions {
  const kept = stored ? Object.entries(stored.documents).filter(([memoryId]) => !Object.hasOwn(record.documents, memoryId)) : [];
  if (kept.length === 0) return record;
  const documents = { ...Object.fromEntries(kept), ...record.documents };
  const entity = deriveEntity(record.entity, documents);
  return entity ? { id: entity.id, entity, documents } : record;
}

/** `record` with the stored supports of memories it does not name, derived again when there are any. */
export function withStoredSupports<T extends { readonly supports: readonly { readonly memoryId: string }[] }>(
  record: T,
  stored: T | undefined,
  derive: (record: T) => T | null,
): T {
  const named = new Set(record.supports.map((support) => support.memoryId));
  const kept = stored ? stored.supports.filter((support) => !named.has(support.memoryId)) : [];
  if (kept.length === 0) return record;
  return derive({ ...record, supports: [...record.supports, ...kept] }) ?? record;
}

/**
 * Which fact supersedes which, decided among the imported facts and the stored facts of their subjects
 * (as a save decides it): the imported records with their validity, and the stored ones whose validity
 * changes, which the import writes too. A fact the file says is current stays superseded by a later one
 * saved since; a stored fact the file's later one contradicts becomes superseded.
 */
export function withValidity<E extends { readonly record: FactRecord }>(
  entries: readonly E[],
  stored: ReadonlyMap<string, FactRecord>,
): { entries: E[]; extra: FactRecord[] } {
  const facts = new Map(stored);
  for (const { record } of entries) facts.set(record.id, record);
  const subjects = new Set(entries.map(({ record }) => record.subjectId));
  const groups = new Map<string, FactRecord[]>();
  for (const fact of facts.values()) {
    if (subjects.has(fact.subjectId)) groups.set(fact.subjectId, [...(groups.get(fact.subjectId) ?? []), fact]);
  }
  const changed = new Map<string, FactRecord>();
  for (const group of groups.values()) for (const fact of applySupersession(group)) changed.set(fact.id, fact);
  const named = new Set(entries.map(({ record }) => record.id));
  return {
    entries: entries.map((entry) => ({ ...entry, record: changed.get(entry.record.id) ?? entry.record })),
    extra: [...changed.values()].filter((fact) => !named.has(fact.id)),
  };
}
