import type { EntityType, FactCategory } from '../../providers/spec.js';

/**
 * Knowledge records as the store keeps them. Every entity, fact and edge keeps what each memory contributed
 * (an entity's contributions in rows of their own, a fact's and an edge's `supports`), and its visible fields
 * (mentions, aliases, confidence, strength...) are derived from those contributions. Forgetting a memory
 * removes its contributions and re-derives: nothing can be left pointing at a deleted memory, and a merge is
 * undone exactly when its evidence goes.
 */

/** What one memory says about an entity. */
export interface EntityContribution {
  /** Mentions in that memory. */
  readonly mentions: number;
  /** The memory's createdAt: first/last seen are the earliest/latest of these. */
  readonly seenAt: number;
  /** Names that memory uses for the entity (the first is its best one). */
  readonly names: readonly string[];
  readonly properties: Readonly<Record<string, string | number | boolean>>;
}

/** Where a contribution stands in an entity's history: by the memory's time, then its id, then the place within it. */
export type TallyPlace = readonly [seenAt: number, memoryId: string, index: number];

export interface NameTally {
  /** The spelling of its first use. */
  readonly display: string;
  /** Memories using the name (by its normalised form). */
  readonly documents: number;
  readonly first: TallyPlace;
}

export interface PropertyTally {
  /** The value of the latest contribution that gives the property. */
  readonly value: string | number | boolean;
  readonly latest: TallyPlace;
  /** Where it was first given: the order of the entity's properties. */
  readonly first: TallyPlace;
}

/**
 * An entity's contributions summed up (entity-tally.ts): per normalised name how many memories use it and
 * where it was first seen, per property its latest value, and the totals. The visible fields follow from it
 * alone, so adding a memory's contribution reads none of the others.
 */
export interface EntityTally {
  readonly names: ReadonlyMap<string, NameTally>;
  readonly properties: ReadonlyMap<string, PropertyTally>;
  readonly mentions: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
}

export interface EntityRecord {
  readonly id: string;
  readonly name: string;
  readonly type: EntityType;
  readonly aliases: readonly string[];
  readonly properties: Readonly<Record<string, string | number | boolean>>;
  readonly mentions: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
  /** Memory ids, oldest first. */
  readonly relatedDocuments: readonly string[];
  /** Lookup keys (see names.ts): normalised names, tokens, acronyms. */
  readonly matchKeys: readonly string[];
  /** What the fields above are derived from; the contributions themselves are read apart (contributionsOf). */
  readonly tally: EntityTally;
}

/** An entity's contributions by memory id. */
export type EntityContributions = Readonly<Record<string, EntityContribution>>;

export interface ContributionRef {
  readonly entityId: string;
  readonly memoryId: string;
}

export interface ContributionRecord extends ContributionRef {
  readonly contribution: EntityContribution;
}

/** One memory stating a fact. */
export interface FactSupport {
  readonly memoryId: string;
  readonly statement: string;
  readonly excerpt: string;
  readonly confidence: number;
  readonly extractedAt: number;
  /** When the text says the fact became true (epoch ms). */
  readonly validFrom: number | null;
  /** The memory's createdAt: orders facts without a validFrom. */
  readonly statedAt: number;
}

export interface FactRecord {
  readonly id: string;
  readonly subjectId: string;
  readonly subject: string;
  readonly predicate: string;
  readonly object: string;
  /** Set when the object is an entity. */
  readonly objectId: string | null;
  readonly category: FactCategory;
  readonly statement: string;
  readonly confidence: number;
  /** The latest supporting memory. */
  readonly source: { readonly documentId: string; readonly excerpt: string };
  readonly extractedAt: number;
  readonly validFrom: number | null;
  /** When a later contradicting fact took over; null while current. */
  readonly validTo: number | null;
  readonly supersededBy: string | null;
  readonly supports: readonly FactSupport[];
}

export interface EdgeSupport {
  readonly memoryId: string;
  readonly confidence: number;
}

export interface EdgeRecord {
  readonly id: string;
  readonly sourceId: string;
  readonly targetId: string;
  readonly relationship: string;
  /** 0-1 from how often and how confidently the relation is stated (see strength() in derive.ts). */
  readonly strength: number;
  readonly supports: readonly EdgeSupport[];
}

export type ExtractionState = 'pending' | 'processing' | 'completed' | 'failed';

/** Extraction state of one memory (turbo memories have none). */
export interface ExtractionStatusRecord {
  readonly memoryId: string;
  readonly status: ExtractionState;
  readonly error: string | null;
  /** e.g. builtin/rules-v1, ollama/llama3.2 */
  readonly model: string;
  readonly attempts: number;
  readonly updatedAt: number;
  readonly entities: number;
  readonly facts: number;
}

export type EntitySort = 'mentions' | 'name' | 'recent';

export interface EntityListRequest {
  readonly type?: EntityType | undefined;
  /** Case-insensitive substring of the name or an alias. */
  readonly search?: string | undefined;
  readonly sortBy: EntitySort;
  readonly limit: number;
  readonly offset: number;
}

export interface FactListRequest {
  /** Facts whose subject or object is one of these entities. */
  readonly entityIds?: readonly string[] | undefined;
  readonly category?: FactCategory | undefined;
  readonly minConfidence?: number | undefined;
  readonly includeSuperseded: boolean;
  /**
   * Without superseded facts: as of when. A fact a later one supersedes from a date still to come ("is
   * moving to Oslo next year") is current until then. Without it, any superseded fact is left out.
   */
  readonly asOf?: number | undefined;
  readonly limit: number;
  readonly offset: number;
}

export interface KnowledgeChanges {
  readonly upsertEntities?: readonly EntityRecord[];
  /** Their contributions go with them. */
  readonly deleteEntities?: readonly string[];
  /** Removed before the ones added are stored (a memory applied again replaces its contributions). */
  readonly removeContributions?: readonly ContributionRef[];
  /** Every contribution of these entities, removed before the ones added are stored (import replaces them). */
  readonly clearContributions?: readonly string[];
  readonly addContributions?: readonly ContributionRecord[];
  readonly upsertFacts?: readonly FactRecord[];
  readonly deleteFacts?: readonly string[];
  readonly upsertEdges?: readonly EdgeRecord[];
  readonly deleteEdges?: readonly string[];
}

/**
 * Knowledge tables of one account (the store adds the account predicate to every query).
 */
export interface KnowledgeStore {
  readonly accountId: string;
  /** Entities having any of these match keys. */
  entitiesByKeys(keys: readonly string[]): Promise<EntityRecord[]>;
  entitiesByIds(ids: readonly string[]): Promise<EntityRecord[]>;
  entitiesOfMemory(memoryId: string): Promise<EntityRecord[]>;
  /** The contributions of these entities (an entity without any is left out). */
  contributionsOf(entityIds: readonly string[]): Promise<Map<string, EntityContributions>>;
  listEntities(request: EntityListRequest): Promise<{ items: EntityRecord[]; total: number }>;
  /** Entity count per type over the whole account. */
  entityTypeCounts(): Promise<Record<string, number>>;
  /** Top entities by mentions (optionally of one type). */
  topEntities(limit: number, type?: EntityType): Promise<EntityRecord[]>;
  factsOfMemory(memoryId: string): Promise<FactRecord[]>;
  factsOfSubjects(subjectIds: readonly string[]): Promise<FactRecord[]>;
  listFacts(request: FactListRequest): Promise<{ items: FactRecord[]; total: number }>;
  edgesOfMemory(memoryId: string): Promise<EdgeRecord[]>;
  /** Edges with an end in `ids` (both ends in `ids` with `within`). */
  edgesTouching(ids: readonly string[], within?: boolean): Promise<EdgeRecord[]>;
  write(changes: KnowledgeChanges): Promise<void>;
  getStatus(memoryId: string): Promise<ExtractionStatusRecord | null>;
  /** `fresh`: the memory has no status row yet, so the row is appended instead of merged. */
  putStatus(record: ExtractionStatusRecord, options?: { fresh?: boolean }): Promise<void>;
  deleteStatus(memoryIds: readonly string[]): Promise<void>;
  statusesIn(states: readonly ExtractionState[]): Promise<ExtractionStatusRecord[]>;
  /** Row counts of every knowledge table for this account (tests check nothing is orphaned). */
  counts(): Promise<{ entities: number; contributions: number; facts: number; edges: number; statuses: number }>;
  /** Pages in id order after `after` (null: from the start), for export. */
  entityPage(after: string | null, limit: number): Promise<EntityRecord[]>;
  factPage(after: string | null, limit: number): Promise<FactRecord[]>;
  edgePage(after: string | null, limit: number): Promise<EdgeRecord[]>;
  factsByIds(ids: readonly string[]): Promise<FactRecord[]>;
  edgesByIds(ids: readonly string[]): Promise<EdgeRecord[]>;
  statusesOf(memoryIds: readonly string[]): Promise<ExtractionStatusRecord[]>;
  /** One commit for many statuses (import). */
  putStatuses(records: readonly ExtractionStatusRecord[]): Promise<void>;
  /** Those of these ids that another tenant uses in that table (an import must not take them over). */
  takenElsewhere(table: KnowledgeTable, ids: readonly string[]): Promise<string[]>;
}

export type KnowledgeTable = 'entities' | 'facts' | 'edges';
