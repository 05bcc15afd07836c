import type { EntityType } from '../../providers/spec.js';
import { matchKeys, nameQuality } from './names.js';
import type { EntityContribution, EntityRecord } from './types.js';

/**
 * What an entity's visible fields are derived from, summed over its contributions: per name how many
 * memories use it and where it was first seen, per property its latest value, and the totals. An entity's
 * fields follow from its tally alone, so one more memory's contribution costs the names and properties it
 * brings, not a pass over every memory that ever named the entity (a person's own name comes back in most
 * of their notes, and a batch of standard saves would otherwise re-derive it once per memory).
 */

type Scalar = string | number | boolean;

/** Where a contribution stands in the entity's history: by the memory's time, then its id, then the place within it. */
type Place = readonly [seenAt: number, memoryId: string, index: number];

function before(a: Place, b: Place): boolean {
  if (a[0] !== b[0]) return a[0] < b[0];
  if (a[1] !== b[1]) return a[1] < b[1];
  return a[2] < b[2];
}

interface NameTally {
  /** The spelling of its first use. */
  readonly display: string;
  /** Memories using the name (by its normalised form). */
  readonly documents: number;
  readonly first: Place;
}

interface PropertyTally {
  /** The value of the latest contribution that gives the property. */
  readonly value: Scalar;
  readonly latest: Place;
  /** Where it was first given: the order of the entity's properties. */
  readonly first: Place;
}

interface EntityTally {
  readonly names: ReadonlyMap<string, NameTally>;
  readonly properties: ReadonlyMap<string, PropertyTally>;
  readonly mentions: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
}

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
    const place: Place = [contribution.seenAt, memoryId, index];
    const known = into.names.get(key);
    const counted = seen.has(key) ? 0 : 1;
    seen.add(key);
    if (!known) into.names.set(key, { display: name.trim(), documents: counted, first: place });
    else if (before(place, known.first)) into.names.set(key, { display: name.trim(), documents: known.documents + counted, first: place });
    else if (counted) into.names.set(key, { ...known, documents: known.documents + 1 });
  });
  Object.entries(contribution.properties).forEach(([key, value], index) => {
    const place: Place = [contribution.seenAt, memoryId, index];
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
function entityFromTally(
  base: { readonly id: string; readonly type: EntityType },
  tally: EntityTally,
  relatedDocuments: readonly string[],
  documents: Readonly<Record<string, EntityContribution>>,
): EntityRecord | null {
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
  const entity: EntityRecord = {
    id: base.id,
    type: base.type,
    name: allNames[0] ?? base.id,
    aliases: allNames.slice(1),
    properties,
    mentions: tally.mentions,
    firstSeen: tally.firstSeen,
    lastSeen: tally.lastSeen,
    relatedDocuments,
    documents,
    matchKeys: matchKeys(allNames, base.type),
  };
  tallies.set(entity, tally);
  return entity;
}

/** The tallies of the records derived here; a record read from the store is tallied when it is added to. */
const tallies = new WeakMap<EntityRecord, EntityTally>();

/** An entity's fields from all of its contributions. */
export function entityFromDocuments(base: { readonly id: string; readonly type: EntityType }, documents: Readonly<Record<string, EntityContribution>>): EntityRecord | null {
  const entries = inOrder(documents);
  return entityFromTally(base, tallyOfEntries(entries), entries.map(([memoryId]) => memoryId), Object.fromEntries(entries));
}

/**
 * `entity` with one more memory's contribution, equal to deriving it from all of them, at the cost of the
 * names and properties it brings. The result shares `entity.documents`, which does not hold the contribution
 * yet: `keep()` adds it there once the result replaces `entity` for good, so that an entity whose memory
 * fails half-way through its extraction is left as it was. A memory that already contributed is derived
 * again from all contributions.
 */
export function withContribution(entity: EntityRecord, memoryId: string, contribution: EntityContribution): { entity: EntityRecord; keep: () => void } {
  if (Object.hasOwn(entity.documents, memoryId)) {
    const derived = entityFromDocuments(entity, { ...entity.documents, [memoryId]: contribution }) as EntityRecord;
    return { entity: derived, keep: () => undefined };
  }
  let tally = tallies.get(entity);
  let related = [...entity.relatedDocuments];
  if (!tally) {
    // Read from the store: tallied from its contributions, which also give the order of its memories (as
    // the full derivation takes it, should the row's list and its contributions ever disagree).
    const entries = inOrder(entity.documents);
    tally = tallyOfEntries(entries);
    related = entries.map(([id]) => id);
  }
  // Oldest first, as the entity saw them: a new memory usually goes last.
  let at = related.length;
  while (at > 0) {
    const previous = entity.documents[related[at - 1] as string];
    if (!previous || previous.seenAt < contribution.seenAt || (previous.seenAt === contribution.seenAt && (related[at - 1] as string) < memoryId)) break;
    at -= 1;
  }
  related.splice(at, 0, memoryId);
  const documents = entity.documents as Record<string, EntityContribution>;
  const derived = entityFromTally(entity, addToTally(tally, memoryId, contribution), related, documents) as EntityRecord;
  return {
    entity: derived,
    keep: () => {
      documents[memoryId] = contribution;
    },
  };
}
