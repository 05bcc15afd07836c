/** What ingest needs from the outside world, as ports: the adapters live in src/ingest (fetching, parsing, webhooks). */

/** Readable text and metadata taken from a page or a file. */
export interface ExtractedDocument {
  readonly text: string;
  readonly title: string | null;
  readonly metadata: Record<string, unknown>;
}

export interface DocumentSource {
  /** Fetches and extracts a URL; failures are MemError INVALID_URL saying which. */
  fromUrl(url: string, signal?: AbortSignal): Promise<ExtractedDocument>;
  /** Extracts an uploaded or watched file by content type and file name. */
  fromFile(body: Buffer, contentType: string, filename?: string): Promise<ExtractedDocument>;
}

/** One POST to a webhook receiver. */
export interface WebhookAttempt {
  /** 1-based. */
  readonly attempt: number;
  /** When the attempt started, epoch milliseconds. */
  readonly at: number;
  /** The receiver's HTTP status; null when no response came (policy refusal, network error, timeout). */
  readonly status: number | null;
  /** Why the attempt failed; null when it succeeded (2xx). */
  readonly error: string | null;
  readonly durationMs: number;
}

export interface WebhookPayload {
  readonly event: 'ingest.completed';
  readonly jobId: string;
  readonly timestamp: string;
  readonly results: { readonly total: number; readonly successful: number; readonly failed: number };
  readonly documents: readonly string[];
  readonly errors: readonly { readonly index: number; readonly error: string }[];
}

export interface WebhookSender {
  /** Refuses a URL that can never be delivered to (scheme, credentials); VALIDATION_ERROR. */
  validate(url: string): void;
  deliver(
    url: string,
    payload: WebhookPayload,
    options: { secret: string; onAttempt: (attempt: WebhookAttempt) => void | Promise<void>; signal?: AbortSignal },
  ): Promise<{ delivered: boolean; attempts: readonly WebhookAttempt[] }>;
}

/** One item of a bulk ingest. */
export interface IngestItem {
  readonly content?: string | undefined;
  readonly url?: string | undefined;
  readonly title?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly spaceId?: string | undefined;
  /** Content items only: what it answers (see MemoryRecord.context). */
  readonly context?: string | undefined;
  /** Content items only: who wrote or said it (see MemoryRecord.author). */
  readonly author?: string | undefined;
  /** When a content item was written or happened (epoch ms; see SaveInput.createdAt). */
  readonly createdAt?: number | undefined;
  /** A file of a watched folder (the first scan of a watch is an ingest job of such items; never from HTTP). */
  readonly file?: WatchedFileRef | undefined;
}

export interface WatchedFileRef {
  /** Absolute path; the memory is keyed by it (metadata.sourcePath). */
  readonly path: string;
  readonly watchId: string;
  /** Bytes when the first scan listed it: bounds a batch's files (file-batches.ts); absent in older jobs. */
  readonly size?: number | undefined;
}

/** Saves the file of a `file` item (core/watch/watched-files.ts); resolves with the memory id. */
export interface WatchedFileSaver {
  saveFile(tenant: string, file: WatchedFileRef, id: string): Promise<string>;
  /** Many files at once (a first scan's batch): settles per file, in order, with the memory id. */
  saveFiles(
    tenant: string,
    files: readonly { readonly file: WatchedFileRef; readonly id: string }[],
    options?: SaveFilesOptions,
  ): Promise<PromiseSettledResult<string>[]>;
}

/** What saveFiles takes beside the files. */
export interface SaveFilesOptions {
  /** Grants up to `wanted` files at once (the background pace); `release` is called when they are saved. */
  readonly gate?: (wanted: number) => Promise<{ readonly granted: number; readonly release: () => void }>;
  /** Asked before new files' memories are written: false leaves them unsaved (lease fencing, see MemoryService.saveMany). */
  readonly beforeCommit?: () => Promise<boolean>;
  /** false: each new file is created on its own, not with the others of its piece (a store shared by several daemons). */
  readonly together?: boolean;
}
