import type { EntityType } from '../../providers/spec.js';
import { entityFromDocuments } from './entity-tally.js';
import { core } from './names.js';
import type { EdgeRecord, EdgeSupport, EntityContribution, EntityRecord, FactRecord, FactSupport } from './types.js';

/**
 * The visible fields of entities, facts and edges, derived from their per-memory contributions. Called after
 * every change, so a record always equals what its remaining evidence says.
 */

const round3 = (value: number) => Math.round(value * 1000) / 1000;

export function deriveEntity(base: { id: string; type: EntityType }, documents: Readonly<Record<string, EntityContribution>>): EntityRecord | null {
  return entityFromDocuments(base, documents);
}

/** A fact's fields from its supports: the latest statement speaks for it, confidence is the best support's. */
export function deriveFact(fact: Omit<FactRecord, 'statement' | 'confidence' | 'source' | 'extractedAt' | 'validFrom'>): FactRecord | null {
  const supports = [...fact.supports].sort((a, b) => a.statedAt - b.statedAt || (a.memoryId < b.memoryId ? -1 : 1));
  const latest = supports[supports.length - 1];
  if (!latest) return null;
  const validFroms = supports.map((support) => support.validFrom).filter((value): value is number => value !== null);
  return {
    ...fact,
    supports,
    statement: latest.statement,
    confidence: round3(Math.max(...supports.map((support) => support.confidence))),
    source: { documentId: latest.memoryId, excerpt: latest.excerpt },
    extractedAt: latest.extractedAt,
    validFrom: validFroms.length > 0 ? Math.min(...validFroms) : null,
  };
}

export function factWithoutDocument(fact: FactRecord, memoryId: string): FactRecord | null {
  if (!fact.supports.some((support) => support.memoryId === memoryId)) return fact;
  return deriveFact({ ...fact, supports: fact.supports.filter((support) => support.memoryId !== memoryId) });
}

/**
 * Strength of a relation: a noisy-or of its supports, each counting half its confidence, so one confident
 * statement gives ~0.45, two ~0.7, three ~0.83; repetition and confidence both raise it, never past 1.
 */
export function strength(supports: readonly EdgeSupport[]): number {
  let miss = 1;
  for (const support of supports) miss *= 1 - Math.min(1, Math.max(0, support.confidence)) / 2;
  return round3(1 - miss);
}

export function deriveEdge(edge: Omit<EdgeRecord, 'strength'>): EdgeRecord | null {
  if (edge.supports.length === 0) return null;
  const supports = [...edge.supports].sort((a, b) => (a.memoryId < b.memoryId ? -1 : 1));
  return { ...edge, supports, strength: strength(supports) };
}

export function edgeWithoutDocument(edge: EdgeRecord, memoryId: string): EdgeRecord | null {
  if (!edge.supports.some((support) => support.memoryId === memoryId)) return edge;
  return deriveEdge({ ...edge, supports: edge.supports.filter((support) => support.memoryId !== memoryId) });
}

/** Predicates a subject has one value of at a time: a new value supersedes the old one. */
const SINGLE_VALUED = new Set(['WORKS_AT', 'LOCATED_IN', 'LIVES_IN', 'HEADQUARTERED_IN', 'BASED_IN', 'REPORTS_TO', 'STATUS']);

function contradicts(older: FactRecord, newer: FactRecord): boolean {
  if (older.subjectId !== newer.subjectId || older.id === newer.id) return false;
  const sameObject = core(older.object) === core(newer.object);
  if (older.category === 'role' && newer.category === 'role') {
    // A new role at the same organisation, or the same role at another one.
    return (older.predicate === newer.predicate && !sameObject) || (older.predicate !== newer.predicate && sameObject);
  }
  if (older.predicate !== newer.predicate) return false;
  if (SINGLE_VALUED.has(older.predicate) || older.category === 'metric') return !sameObject;
  return false;
}

/** When a memory first stated the fact. */
function statedAt(fact: FactRecord): number {
  return Math.min(...fact.supports.map((support) => support.statedAt));
}

/**
 * Whether `newer` is later news than `older`: by the dates the texts give when both give one (a note
 * written today about 2020 does not override one about 2023), else by when the memories were written.
 */
function isLater(newer: FactRecord, older: FactRecord): boolean {
  if (newer.validFrom !== null && older.validFrom !== null && newer.validFrom !== older.validFrom) return newer.validFrom > older.validFrom;
  const a = statedAt(newer);
  const b = statedAt(older);
  if (a !== b) return a > b;
  return (newer.validFrom ?? -Infinity) > (older.validFrom ?? -Infinity);
}

/**
 * Sets validTo/supersededBy on facts of one subject: each fact is superseded by the earliest later fact
 * that contradicts it, from when that one became true. Returns the facts whose validity changed.
 */
export function applySupersession(facts: readonly FactRecord[]): FactRecord[] {
  const changed: FactRecord[] = [];
  for (const fact of facts) {
    const successors = facts
      .filter((other) => contradicts(fact, other) && isLater(other, fact))
      .sort((a, b) => (isLater(a, b) ? 1 : isLater(b, a) ? -1 : a.id < b.id ? -1 : 1));
    const successor = successors[0];
    const validTo = successor ? Math.max(successor.validFrom ?? statedAt(successor), fact.validFrom ?? -Infinity) : null;
    const supersededBy = successor ? successor.id : null;
    if (validTo !== fact.validTo || supersededBy !== fact.supersededBy) changed.push({ ...fact, validTo, supersededBy });
  }
  return changed;
}

export type { FactSupport };
