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

/**
 * The store as core sees it. A `MemoryStore` is already scoped to one account: the store layer adds the
 * account predicate to every query, so no service or route can forget it.
 */
export interface MemoryStore {
  readonly accountId: string;
  insert(memory: MemoryRecord, chunks: readonly ChunkInput[]): Promise<void>;
  get(id: string): Promise<MemoryRecord | null>;
  getMany(ids: readonly string[]): Promise<MemoryRecord[]>;
  /** Replaces the memory row; with `chunks`, replaces its vectors too (content changed). */
  replace(memory: MemoryRecord, chunks?: readonly ChunkInput[]): Promise<void>;
  /** Deletes memories and their vectors; returns the ids that existed. */
  delete(ids: readonly string[]): Promise<string[]>;
  list(filter: MemoryFilter, page: { limit: number; offset: number }): Promise<{ items: MemoryRecord[]; total: number }>;
  count(filter?: MemoryFilter): Promise<number>;
  findByContentHash(hash: string): Promise<MemoryRecord | null>;
  /** A memory whose metadata has `key` equal to the string `value` (URL and file saves find their memory so). */
  findByMetadata(key: string, value: string): Promise<MemoryRecord | null>;
  vectorSearch(vector: Float32Array, filter: MemoryFilter, k: number): Promise<VectorHit[]>;
  keywordSearch(text: string, filter: MemoryFilter, k: number): Promise<KeywordHit[]>;
  /** Every memory id of the account (ids only: cheap even for large accounts). */
  ids(options?: { turbo?: boolean }): Promise<string[]>;
  /** Memory ids that have no vectors in the current embedding model's space. */
  idsWithoutVectors(limit: number): Promise<string[]>;
  /** Bytes of content stored (approximate storage use). */
  contentBytes(): Promise<number>;
  /** Filters, sorts and pages inside LanceDB, reading only the fields asked for. */
  select(request: SelectRequest): Promise<SelectResult>;
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
  close(): Promise<void>;
}

export interface MaintenanceReport {
  readonly tables: number;
  readonly compactedFragments: number;
  readonly prunedVersions: number;
  readonly vectorIndex: string;
  readonly durationMs: number;
}
