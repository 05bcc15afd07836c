import type { EntityType } from '../../providers/spec.js';
import { matchKeys, nameQuality } from './names.js';
import type { EntityContribution, EntityContributions, EntityRecord, EntityTally, NameTally, PropertyTally, TallyPlace } from './types.js';

/**
 * What an entity's visible fields are derived from, summed over its contributions: per name how many
 * memories use it and where it was first seen, per property its latest value, and the totals. An entity's
 * fields follow from its tally alone, so one more memory's contribution costs the names and properties it
 * brings, not a pass over every memory that ever named the entity (a person's own name comes back in most
 * of their notes, and a batch of standard saves would otherwise re-derive it once per memory).
 */

type Scalar = string | number | boolean;

function before(a: TallyPlace, b: TallyPlace): boolean {
  if (a[0] !== b[0]) return a[0] < b[0];
  if (a[1] !== b[1]) return a[1] < b[1];
  return a[2] < b[2];
}

/**
 * A tally that no memory can be added to without reading the entity's contributions (its latest memory is
 * later than any): what a damaged or missing tally stands for, so the entity is derived again from them.
 */
export const UNKNOWN_TALLY: EntityTally = { names: new Map(), properties: new Map(), mentions: 0, firstSeen: Infinity, lastSeen: Infinity };

const EMPTY: EntityTally = { names: new Map(), properties: new Map(), mentions: 0, firstSeen: Infinity, lastSeen: -Infinity };

interface Tallying {
  readonly names: Map<string, NameTally>;
  readonly properties: Map<string, PropertyTally>;
  mentions: number;
  firstSeen: number;
  lastSeen: number;
}

/** Adds one contribution to `into`, in place. */
function count(into: Tallying, memoryId: string, contribution: EntityContribution): void {
  const seen = new Set<string>();
  contribution.names.forEach((name, index) => {
    const key = name.trim().toLowerCase();
    if (!key) return;
    const place: TallyPlace = [contribution.seenAt, memoryId, index];
    const known = into.names.get(key);
    const counted = seen.has(key) ? 0 : 1;
    seen.add(key);
    if (!known) into.names.set(key, { display: name.trim(), documents: counted, first: place });
    else if (before(place, known.first)) into.names.set(key, { display: name.trim(), documents: known.documents + counted, first: place });
    else if (counted) into.names.set(key, { ...known, documents: known.documents + 1 });
  });
  Object.entries(contribution.properties).forEach(([key, value], index) => {
    const place: TallyPlace = [contribution.seenAt, memoryId, index];
    const known = into.properties.get(key);
    if (!known) {
      into.properties.set(key, { value, latest: place, first: place });
      return;
    }
    const latest = before(known.latest, place);
    into.properties.set(key, {
      value: latest ? value : known.value,
      latest: latest ? place : known.latest,
      first: before(place, known.first) ? place : known.first,
    });
  });
  into.mentions += contribution.mentions;
  into.firstSeen = Math.min(into.firstSeen, contribution.seenAt);
  into.lastSeen = Math.max(into.lastSeen, contribution.seenAt);
}

function copy(tally: EntityTally): Tallying {
  return { ...tally, names: new Map(tally.names), properties: new Map(tally.properties) };
}

/** The tally with one more contribution (the tally given is not changed). */
function addToTally(tally: EntityTally, memoryId: string, contribution: EntityContribution): EntityTally {
  const next = copy(tally);
  count(next, memoryId, contribution);
  return next;
}

/** Contributions in the order the entity saw them: by time, then memory id. */
function inOrder(documents: Readonly<Record<string, EntityContribution>>): [string, EntityContribution][] {
  return Object.entries(documents).sort(([a, x], [b, y]) => x.seenAt - y.seenAt || (a < b ? -1 : 1));
}

function tallyOfEntries(entries: readonly (readonly [string, EntityContribution])[]): EntityTally {
  const tally = copy(EMPTY);
  for (const [memoryId, contribution] of entries) count(tally, memoryId, contribution);
  return tally;
}

/** An entity's fields from its tally; null when no memory contributes to it. */
function entityFromTally(base: { readonly id: string; readonly type: EntityType }, tally: EntityTally, relatedDocuments: readonly string[]): EntityRecord | null {
  if (relatedDocuments.length === 0) return null;
  const ranked = [...tally.names.values()].sort(
    (a, b) =>
      // Completeness first (whole words, not shouting), then the name most memories use, then the first seen.
      Math.floor(nameQuality(b.display, base.type)) - Math.floor(nameQuality(a.display, base.type)) ||
      b.documents - a.documents ||
      (before(a.first, b.first) ? -1 : 1),
  );
  const allNames = ranked.map((entry) => entry.display);
  const properties: Record<string, Scalar> = {};
  for (const [key, property] of [...tally.properties].sort(([, a], [, b]) => (before(a.first, b.first) ? -1 : 1))) properties[key] = property.value;
  return {
    id: base.id,
    type: base.type,
    name: allNames[0] ?? base.id,
    aliases: allNames.slice(1),
    properties,
    mentions: tally.mentions,
    firstSeen: tally.firstSeen,
    lastSeen: tally.lastSeen,
    relatedDocuments,
    matchKeys: matchKeys(allNames, base.type),
    tally,
  };
}

/** An entity's fields from all of its contributions. */
export function entityFromDocuments(base: { readonly id: string; readonly type: EntityType }, documents: EntityContributions): EntityRecord | null {
  const entries = inOrder(documents);
  return entityFromTally(base, tallyOfEntries(entries), entries.map(([memoryId]) => memoryId));
}

/**
 * `entity` with one more memory's contribution, equal to deriving it from all of them, at the cost of the
 * names and properties it brings; null when that takes the other contributions: the memory contributed
 * already, or it is not the entity's latest (an import, a note dated in the past), whose place in the
 * entity's history and its first names depend on the others.
 */
export function withContribution(entity: EntityRecord, memoryId: string, contribution: EntityContribution): EntityRecord | null {
  const related = entity.relatedDocuments;
  const last = related[related.length - 1];
  if (last !== undefined) {
    // The last memory is the latest one seen (the list is in the tally's order). A memory contributes at its
    // own time, so one that contributed already is never later than the last: it is the last, or before it.
    const latest = contribution.seenAt > entity.tally.lastSeen || (contribution.seenAt === entity.tally.lastSeen && memoryId > last);
    if (!latest) return null;
  }
  return entityFromTally(entity, addToTally(entity.tally, memoryId, contribution), [...related, memoryId]);
}

/**
 * `entity` without what `memoryId` contributed, from all of its contributions (`documents`), and the
 * contributions left.
 */
export function withoutContribution(
  entity: EntityRecord,
  documents: EntityContributions,
  memoryId: string,
): { entity: EntityRecord | null; documents: EntityContributions } {
  if (!Object.hasOwn(documents, memoryId)) return { entity, documents };
  const rest = { ...documents };
  delete rest[memoryId];
  return { entity: entityFromDocuments(entity, rest), documents: rest };
}
