import type {
  Account,
  ApiKeyRecord,
  ChunkInput,
  JobRecord,
  KeywordHit,
  MemoryFilter,
  MemoryRecord,
  PendingSaveRecord,
  UsageEvent,
  VectorHit,
  WatchRecord,
} from './types.js';
import type { MemoryField, MemoryView, SortKey } from './query/fields.js';
import type { FilterNode } from './query/filter.js';
import type { KnowledgeStore } from './knowledge/types.js';

export type { KnowledgeStore } from './knowledge/types.js';

/** A structured read of memories (POST /v1/query) that LanceDB answers on its own. */
export interface SelectRequest {
  /** A filter on built-in fields only (see isTranslatable in query/filter.ts); null for every memory. */
  readonly where: FilterNode | null;
  /** Fields to read; id is always read. */
  readonly fields: readonly MemoryField[];
  /** Built-in fields only (no tags, metadata or score); missing values (updatedAt) sort last. */
  readonly orderBy?: readonly SortKey[];
  /** Without a page, every match is returned. */
  readonly page?: { readonly limit: number; readonly offset: number };
  /**
   * The whole filter the caller will evaluate on the rows (metadata paths included), so that the store may
   * skip rows that cannot match it. Rows it returns may still not match: the caller evaluates.
   */
  readonly narrow?: FilterNode | null;
}

export interface SelectResult {
  readonly rows: MemoryView[];
  /** Every match, not only the page. */
  readonly total: number;
}

/** One page of an account's memories in id order (export pages through them, never loading all at once). */
export interface MemoryPageRequest {
  /** Only ids after this one (keyset paging: ids are ULIDs); null for the first page. */
  readonly after: string | null;
  readonly limit: number;
  readonly spaceId?: string | undefined;
  /** Only memories created or updated at or after this instant (epoch ms). */
  readonly changedSince?: number | undefined;
}

/** A memory with the passages and vectors to store for it (import writes them as they are). */
export interface MemoryWithChunks {
  readonly memory: MemoryRecord;
  readonly chunks: readonly ChunkInput[];
}

/** What a backup copied: every table of the data directory with its row count at the moment of the copy. */
export interface StoreSnapshot {
  readonly schemaVersion: number;
  readonly tables: readonly { readonly name: string; readonly rows: number }[];
}

/** What BM25 needs of an account's passages: their number, their mean length in terms, each term's passages. */
export interface KeywordCorpus {
  readonly passages: number;
  /** The mean number of terms (indexTerms) per passage. */
  readonly averageLength: number;
  documentFrequency(term: string): number;
}

/**
 * The store as core sees it. A `MemoryStore` is already scoped to one account: the store layer adds the
 * account predicate to every query, so no service or route can forget it.
 */
export interface MemoryStore {
  readonly accountId: string;
  /**
   * Stores a memory and its passages. Given the passages still to come (being embedded), the memory row is
   * committed meanwhile and the passages once they arrive; if they fail, the row is removed again and the
   * insert fails with their error.
   */
  insert(memory: MemoryRecord, chunks: readonly ChunkInput[] | Promise<readonly ChunkInput[]>): Promise<void>;
  get(id: string): Promise<MemoryRecord | null>;
  getMany(ids: readonly string[]): Promise<MemoryRecord[]>;
  /** Replaces the memory row; with `chunks`, replaces its vectors too (content changed). */
  replace(memory: MemoryRecord, chunks?: readonly ChunkInput[]): Promise<void>;
  /** Deletes memories and their vectors; returns the ids that existed. */
  delete(ids: readonly string[]): Promise<string[]>;
  list(filter: MemoryFilter, page: { limit: number; offset: number }): Promise<{ items: MemoryRecord[]; total: number }>;
  count(filter?: MemoryFilter): Promise<number>;
  findByContentHash(hash: string): Promise<MemoryRecord | null>;
  /** Every memory whose content has one of these hashes, in one read per hundred hashes. */
  findManyByContentHash(hashes: readonly string[]): Promise<MemoryRecord[]>;
  /** A memory whose metadata has `key` equal to the string `value` (URL and file saves find their memory so). */
  findByMetadata(key: string, value: string): Promise<MemoryRecord | null>;
  /** findByMetadata for many values in one read (a folder's first scan looks its files up per batch): value -> memory. */
  findManyByMetadata(key: string, values: readonly string[]): Promise<Map<string, MemoryRecord>>;
  vectorSearch(vector: Float32Array, filter: MemoryFilter, k: number): Promise<VectorHit[]>;
  /**
   * BM25 over the passages' words. `corpus` (the account's term statistics) lets a store score passages its
   * full-text index has not taken in yet itself, with the index's formula, instead of asking the index to
   * scan them; without it the store asks its index for everything.
   */
  keywordSearch(text: string, filter: MemoryFilter, k: number, corpus?: KeywordCorpus): Promise<KeywordHit[]>;
  /** How many passages the account's memories are indexed by. */
  passageCount(): Promise<number>;
  /** Calls `visit` with the indexed text of every passage of the account; returns how many there were. */
  scanPassages(visit: (text: string) => void): Promise<number>;
  /** Every memory id of the account (ids only: cheap even for large accounts). */
  ids(options?: { turbo?: boolean }): Promise<string[]>;
  /** Memory ids that have no vectors in the current embedding model's space. */
  idsWithoutVectors(limit: number): Promise<string[]>;
  /** Bytes of content stored (approximate storage use). */
  contentBytes(): Promise<number>;
  /** Filters, sorts and pages inside LanceDB, reading only the fields asked for. */
  select(request: SelectRequest): Promise<SelectResult>;
  /** A page of memories ordered by id (export). */
  page(request: MemoryPageRequest): Promise<MemoryRecord[]>;
  /** The passages (with vectors, by seq) of these memories in the current embedding space. */
  chunksOf(ids: readonly string[]): Promise<Map<string, ChunkInput[]>>;
  /** Those of these memory ids that have vectors in the current embedding space. */
  idsWithVectors(ids: readonly string[]): Promise<string[]>;
  /** Those of these memory ids that exist in this account. */
  existingIds(ids: readonly string[]): Promise<string[]>;
  /**
   * Deletes the passages of these memory ids, which have no memory: a save that died between its two commits
   * left them, and the save repeated under the same id would otherwise add its passages beside them. Returns
   * the ids that had passages (one read, and one commit only when there are any).
   */
  deletePassages(ids: readonly string[]): Promise<string[]>;
  /**
   * Those of these memory ids that another tenant uses. Rows are keyed by id across tenants, so an import
   * must never write one of them (it would take the other tenant's row over).
   */
  takenElsewhere(ids: readonly string[]): Promise<string[]>;
  /** Inserts or replaces memories with their passages and vectors, in one commit per table (import). */
  putMany(entries: readonly MemoryWithChunks[]): Promise<void>;
}

export interface AccountStore {
  create(account: Account): Promise<void>;
  get(id: string): Promise<Account | null>;
  owner(): Promise<Account | null>;
  list(): Promise<Account[]>;
  findByEmail(email: string): Promise<Account | null>;
  replace(account: Account): Promise<void>;
  /** Deletes the account record and its keys (its data goes through Storage.purge). */
  delete(id: string): Promise<boolean>;
}

export interface UsageStore {
  append(events: readonly UsageEvent[]): Promise<void>;
  /** An account's events with since <= at < until, optionally of one key type only. */
  events(accountId: string, range: { since: number; until: number }, keyType?: UsageEvent['keyType']): Promise<UsageEvent[]>;
  /** Requests that count toward limits (every status but 429) since an instant, for an account or one key. */
  countSince(accountId: string, since: number, keyId?: string): Promise<number>;
}

export interface KeyStore {
  create(key: ApiKeyRecord): Promise<void>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  listForAccount(accountId: string): Promise<ApiKeyRecord[]>;
  get(accountId: string, id: string): Promise<ApiKeyRecord | null>;
  replace(key: ApiKeyRecord): Promise<void>;
  delete(accountId: string, id: string): Promise<boolean>;
}

export interface PendingSaveStore {
  put(record: PendingSaveRecord): Promise<void>;
  get(accountId: string, id: string): Promise<PendingSaveRecord | null>;
  unfinished(): Promise<PendingSaveRecord[]>;
}

export interface JobStore {
  put(record: JobRecord): Promise<void>;
  get(accountId: string, id: string): Promise<JobRecord | null>;
  list(accountId: string, limit: number): Promise<JobRecord[]>;
  unfinished(): Promise<JobRecord[]>;
}

/** One finished item of an ingest job. */
export interface JobItemResult {
  readonly accountId: string;
  readonly jobId: string;
  readonly index: number;
  readonly success: boolean;
  readonly documentId: string | null;
  readonly error: string | null;
  readonly at: number;
}

export interface JobItemStore {
  append(items: readonly JobItemResult[]): Promise<void>;
  list(accountId: string, jobId: string): Promise<JobItemResult[]>;
}

/** Watched folders; every read but `all` is scoped to one tenant. */
export interface WatchStore {
  put(record: WatchRecord): Promise<void>;
  get(accountId: string, id: string): Promise<WatchRecord | null>;
  /** A tenant's watches, oldest first. */
  list(accountId: string): Promise<WatchRecord[]>;
  /** Every tenant's watches (the daemon starts them all). */
  all(): Promise<WatchRecord[]>;
  delete(accountId: string, id: string): Promise<boolean>;
}

export interface Storage {
  readonly uri: string;
  /** Embedding space the chunk vectors of this store belong to. */
  readonly vectorSpace: { readonly modelId: string; readonly dimension: number };
  memories(accountId: string): MemoryStore;
  /** Entities, facts, edges and extraction status of one account. */
  knowledge(accountId: string): KnowledgeStore;
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly pendingSaves: PendingSaveStore;
  readonly jobs: JobStore;
  readonly usage: UsageStore;
  readonly jobItems: JobItemStore;
  /** Watched folders (every tenant's). */
  readonly watches: WatchStore;
  /** Deletes every row that belongs to these tenants (memories, vectors, knowledge, jobs, usage). */
  purge(tenantIds: readonly string[]): Promise<void>;
  /** Compaction, old-version cleanup, FTS folding and vector-index upkeep; safe to run while serving. */
  maintain(): Promise<MaintenanceReport>;
  totalMemories(): Promise<number>;
  /** Writes committed so far (each a new table version), the rows they appended and their time: for GET /v1/status. */
  commitLoad?(): CommitLoad;
  /** Vector queries sent so far and the searches they answered (concurrent searches share one): for GET /v1/status. */
  vectorSearchLoad?(): VectorSearchLoad;
  /** Commits waiting for a compaction, compactions so far, the vector index's parts: for GET /v1/status. */
  searchTablesLoad?(): SearchTablesLoad;
  /**
   * Copies the whole data directory into `targetDir` (which must not exist) while writes wait: every
   * table's writer is held, in a fixed order, for the copy, and maintenance does not run meanwhile. A local
   * data directory only.
   */
  backup(targetDir: string): Promise<StoreSnapshot>;
  close(): Promise<void>;
}

export interface CommitLoad {
  readonly commits: number;
  readonly rows: number;
  /** Summed duration of the commits (ms); concurrent commits to different tables overlap. */
  readonly ms: number;
}

export interface VectorSearchLoad {
  readonly queries: number;
  readonly searches: number;
}

/** The search tables as searches find them, and their compactions so far: for GET /v1/status. */
export interface SearchTablesLoad {
  /** Commits to a search table since its last compaction (the larger count of the two): fragments every search reads. */
  readonly pendingCommits: number;
  /** Compactions of the search tables finished since the start, and their summed duration (ms). */
  readonly compactions: number;
  readonly compactionMs: number;
  /** Parts of the vector index as the store last read them; null without a vector index (searches are exact). */
  readonly vectorIndexParts: number | null;
  /**
   * Passages not yet in the indexes that searches compare in the process; null while searches ask LanceDB to
   * scan them (a shared store, or after a start, an edit or more new passages than it keeps, until the next
   * compaction).
   */
  readonly pendingPassages: number | null;
}

export interface MaintenanceReport {
  readonly tables: number;
  readonly compactedFragments: number;
  readonly prunedVersions: number;
  readonly vectorIndex: string;
  /** Scalar indexes on the memory and passage tables (0 below 5,000 rows). */
  readonly scalarIndexes: number;
  /** Passages of memories that do not exist (left by a crash in the middle of a save), deleted. */
  readonly orphanPassages: number;
  readonly durationMs: number;
}
