/** Domain records shared by core services and the store. Times are epoch milliseconds. */

export interface MemoryRecord {
  readonly id: string;
  readonly title: string;
  readonly content: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly metadata: Record<string, unknown>;
  readonly spaceId: string;
  readonly createdAt: number;
  readonly updatedAt: number | null;
  /** sha256 of the content, for idempotent re-saves. */
  readonly contentHash: string;
  /** True for memories saved through the turbo path (no extraction). */
  readonly turbo: boolean;
  /**
   * Text that situates the memory (the message it replies to, the section it comes from): embedded and
   * keyword-indexed with it, so a search can find it through what it answers; not part of its content.
   * Empty when none was given.
   */
  readonly context: string;
  /**
   * Who wrote or said the memory (a chat message's speaker, a note's writer), as questions would name them:
   * indexed with each passage, and weighed by hybrid search when a query names an author. Empty when none.
   */
  readonly author: string;
}

export interface ChunkInput {
  readonly seq: number;
  readonly text: string;
  readonly vector: Float32Array;
}

/** Filters every list and search honours; applied inside LanceDB before ranking. */
export interface MemoryFilter {
  readonly spaceId?: string;
  /** A memory matches when it carries at least one of these tags. */
  readonly tags?: readonly string[];
  /** Inclusive lower bound on createdAt. */
  readonly after?: number;
  /** Inclusive upper bound on createdAt. */
  readonly before?: number;
}

export interface VectorHit {
  readonly memoryId: string;
  readonly seq: number;
  /** The passage as indexed (see chunking.ts memoryPassages). */
  readonly text: string;
  /** Cosine similarity in [-1, 1]. */
  readonly similarity: number;
}

export interface KeywordHit {
  readonly memoryId: string;
  readonly seq: number;
  /** The passage as indexed (see chunking.ts memoryPassages). */
  readonly text: string;
  /** BM25 score (unbounded, > 0). */
  readonly score: number;
}

export interface Account {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly company: string;
  readonly tier: 'free' | 'pro' | 'enterprise';
  readonly createdAt: number;
  readonly settings: { defaultSpace: string; timezone: string; language: string };
  readonly isOwner: boolean;
  /** Signs this account's webhook deliveries (created when first needed). */
  readonly webhookSecret?: string | undefined;
}

export type KeyType = 'live' | 'test';

export interface ApiKeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly type: KeyType;
  /** sha256 hex of the full key value; the value itself is never stored. */
  readonly hash: string;
  readonly last4: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly rateLimitPerHour: number | null;
  readonly monthlyLimit: number | null;
  readonly readOnly: boolean;
}

export type PendingStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface PendingSaveRecord {
  readonly id: string;
  readonly accountId: string;
  readonly status: PendingStatus;
  readonly documentId: string | null;
  readonly error: string | null;
  /** The save request as JSON, so a restart can finish it. */
  readonly request: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface JobRecord {
  readonly id: string;
  readonly accountId: string;
  readonly kind: string;
  readonly status: JobStatus;
  readonly total: number;
  readonly completed: number;
  readonly failed: number;
  readonly error: string | null;
  readonly payload: string;
  readonly createdAt: number;
  readonly startedAt: number | null;
  readonly finishedAt: number | null;
}

/** One authenticated request, as recorded for usage statistics and rate limits. */
export interface UsageEvent {
  readonly accountId: string;
  readonly keyId: string;
  readonly keyType: KeyType;
  readonly method: string;
  /** The route pattern (`/v1/memory/:id`), never the raw URL. */
  readonly endpoint: string;
  readonly status: number;
  readonly latencyMs: number;
  readonly at: number;
}

/** A folder the daemon follows (addition: /v1/watches); its files become memories of the watch's tenant. */
export interface WatchRecord {
  readonly id: string;
  /** The tenant that created the watch: its files are saved as that tenant's memories. */
  readonly accountId: string;
  /** Absolute path of the directory. */
  readonly path: string;
  /** Which files count, relative to the directory (`**` for any depth). */
  readonly glob: string;
  readonly tags: readonly string[];
  readonly spaceId: string;
  /** Keep a file's memory when the file is deleted. */
  readonly keepDeleted: boolean;
  readonly createdAt: number;
  /** The ingest job of the first scan (null until it was submitted). */
  readonly initialJobId: string | null;
}
