import { createHash } from 'node:crypto';
import { MemError } from '../errors.js';
import type { TurboSaveInput, TurboService } from './answers/turbo-service.js';
import type { AsyncSaves } from './async-saves.js';
import type { DocumentSaves, SaveOutcome } from './ingest/document-saves.js';
import type { IngestOptions, IngestService, ItemResult } from './ingest/ingest-service.js';
import type { DocumentSource, IngestItem } from './ingest/types.js';
import { assertCreatedAt, type MemoryService, type SaveInput, type UpdateInput } from './memory-service.js';
import type { Account, JobRecord, MemoryRecord, PendingSaveRecord } from './types.js';

/** Who writes: the account (whose plan bounds the write) and the tenant (whose data it goes to). */
export interface Writer {
  readonly account: Account;
  readonly tenant: string;
}

/** The plan's quota check (AccountService.assertCanStore): LIMIT_EXCEEDED before anything is written. */
export interface Quota {
  assertCanStore(account: Account, adding: { memories: number; bytes: number }): Promise<void>;
}

/** An uploaded file, as the HTTP edge read it. */
export interface UploadedFile {
  readonly body: Buffer;
  readonly filename: string;
  readonly mimeType: string;
}

/** POST /v1/save in domain terms: content, a URL or a file, and the fields that go with each. */
export interface SaveRequest extends Omit<SaveInput, 'content' | 'id' | 'turbo'> {
  readonly content?: string | undefined;
  readonly url?: string | undefined;
  readonly file?: UploadedFile | undefined;
  readonly async?: boolean | undefined;
}

export type SaveResult =
  | { readonly kind: 'saved'; readonly memory: MemoryRecord; readonly outcome: SaveOutcome }
  | { readonly kind: 'pending'; readonly pending: PendingSaveRecord };

export type IngestResult = { readonly kind: 'done'; readonly results: ItemResult[] } | { readonly kind: 'job'; readonly job: JobRecord };

export interface SaveServiceDeps {
  readonly quota: Quota;
  readonly memories: MemoryService;
  readonly asyncSaves: AsyncSaves;
  readonly documents: DocumentSaves;
  readonly documentSource: DocumentSource;
  readonly turbo: TurboService;
  readonly ingest: IngestService;
  readonly now?: () => number;
}

/**
 * Every write that adds content, with its plan quota checked first: the save dispatch (content, URL or file;
 * synchronous or async), updates of content, turbo saves and bulk ingest. Routes make one call here, so the
 * rules (what may be combined, what is counted against the plan) live in one place.
 */
export class SaveService {
  private readonly now: () => number;

  constructor(private readonly deps: SaveServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async save(writer: Writer, request: SaveRequest): Promise<SaveResult> {
    const { file, url, content } = request;
    if (file || url !== undefined) return { kind: 'saved', ...(await this.saveDocument(writer, request)) };
    if (content === undefined) throw new MemError('VALIDATION_ERROR', 'Provide content, url, or a file (multipart/form-data).');
    await this.deps.quota.assertCanStore(writer.account, { memories: 1, bytes: Buffer.byteLength(content) });
    const input: SaveInput = { ...request, content };
    if (request.async) {
      if (!content.trim()) throw new MemError('VALIDATION_ERROR', 'content must not be empty.');
      if (input.createdAt !== undefined) assertCreatedAt(input.createdAt, this.now());
      return { kind: 'pending', pending: await this.deps.asyncSaves.submit(writer.tenant, withoutRequestFields(input)) };
    }
    return { kind: 'saved', memory: await this.deps.memories.save(writer.tenant, withoutRequestFields(input)), outcome: 'created' };
  }

  /** A URL or file save: fetched or extracted, then idempotent by its source (the URL, or the file's bytes). */
  private async saveDocument(writer: Writer, request: SaveRequest): Promise<{ memory: MemoryRecord; outcome: SaveOutcome }> {
    const { file, content, context, author } = request;
    const url = request.url?.trim();
    if (file && (request.url !== undefined || content !== undefined)) throw new MemError('VALIDATION_ERROR', 'Send a file, a url or content, not several.');
    if (!file && content !== undefined) throw new MemError('VALIDATION_ERROR', 'Send either content or url, not both.');
    if (context !== undefined) throw new MemError('VALIDATION_ERROR', 'context applies to content saves, not to URLs or files.');
    if (author !== undefined) throw new MemError('VALIDATION_ERROR', 'author applies to content saves, not to URLs or files.');
    await this.deps.quota.assertCanStore(writer.account, { memories: 1, bytes: file?.body.length ?? 0 });
    const document = file ? await this.deps.documentSource.fromFile(file.body, file.mimeType, file.filename) : await this.deps.documentSource.fromUrl(url ?? '');
    const source = file
      ? ({ field: 'fileHash', value: createHash('sha256').update(file.body).digest('hex') } as const)
      : ({ field: 'sourceUrl', value: url ?? '' } as const);
    return this.deps.documents.save(writer.tenant, {
      document,
      source,
      title: request.title,
      tags: request.tags,
      metadata: { ...(request.metadata ?? {}), ...(file ? { filename: file.filename, mimeType: file.mimeType, sizeBytes: file.body.length } : {}) },
      spaceId: request.spaceId,
    });
  }

  async update(writer: Writer, id: string, patch: UpdateInput): Promise<MemoryRecord> {
    if (patch.content !== undefined) await this.deps.quota.assertCanStore(writer.account, { memories: 0, bytes: Buffer.byteLength(patch.content) });
    return this.deps.memories.update(writer.tenant, id, patch);
  }

  async turboSave(writer: Writer, input: TurboSaveInput): Promise<{ memory: MemoryRecord; processingTime: number }> {
    await this.deps.quota.assertCanStore(writer.account, { memories: 1, bytes: Buffer.byteLength(input.content) });
    return this.deps.turbo.save(writer.tenant, input);
  }

  /** Bulk ingest: checked whole (plan item limit, invalid items, webhook, quota), then run now or as a job. */
  async ingest(writer: Writer, items: readonly IngestItem[], options: IngestOptions & { readonly async: boolean }): Promise<IngestResult> {
    this.deps.ingest.validate(writer.account, items, options);
    const bytes = items.reduce((sum, item) => sum + Buffer.byteLength(item.content ?? ''), 0);
    await this.deps.quota.assertCanStore(writer.account, { memories: items.length, bytes });
    const jobOptions = { webhook: options.webhook, turbo: options.turbo };
    if (!options.async) return { kind: 'done', results: await this.deps.ingest.runNow(writer.tenant, items, jobOptions) };
    return { kind: 'job', job: await this.deps.ingest.submit(writer.tenant, items, jobOptions) };
  }
}

/** The request-only fields (url, file, async) stripped, so the memory service sees its own input. */
function withoutRequestFields(input: SaveInput & { url?: unknown; file?: unknown; async?: unknown }): SaveInput {
  const { url: _url, file: _file, async: _async, ...rest } = input;
  return rest;
}
