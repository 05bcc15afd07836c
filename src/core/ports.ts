import type {
  Account,
  ApiKeyRecord,
  ChunkInput,
  JobRecord,
  KeywordHit,
  MemoryFilter,
  MemoryRecord,
  PendingSaveRecord,
  VectorHit,
} from './types.js';

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
  vectorSearch(vector: Float32Array, filter: MemoryFilter, k: number): Promise<VectorHit[]>;
  keywordSearch(text: string, filter: MemoryFilter, k: number): Promise<KeywordHit[]>;
  /** Every memory id of the account (ids only: cheap even for large accounts). */
  ids(): Promise<string[]>;
  /** Memory ids that have no vectors in the current embedding model's space. */
  idsWithoutVectors(limit: number): Promise<string[]>;
  /** Bytes of content stored (approximate storage use). */
  contentBytes(): Promise<number>;
}

export interface AccountStore {
  create(account: Account): Promise<void>;
  get(id: string): Promise<Account | null>;
  owner(): Promise<Account | null>;
  list(): Promise<Account[]>;
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

export interface Storage {
  readonly uri: string;
  /** Embedding space the chunk vectors of this store belong to. */
  readonly vectorSpace: { readonly modelId: string; readonly dimension: number };
  memories(accountId: string): MemoryStore;
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly pendingSaves: PendingSaveStore;
  readonly jobs: JobStore;
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
