import { MemError } from '../../errors.js';
import { contentHash, MAX_CONTENT_BYTES, type MemoryService, type SaveInput } from '../memory-service.js';
import type { Storage } from '../ports.js';
import type { MemoryRecord } from '../types.js';
import type { ExtractedDocument } from './types.js';

export type SaveOutcome = 'created' | 'updated' | 'unchanged';

/** Which metadata field identifies where a document came from. */
export type SourceKey =
  | { readonly field: 'sourceUrl'; readonly value: string }
  | { readonly field: 'fileHash'; readonly value: string }
  | { readonly field: 'sourcePath'; readonly value: string };

export interface DocumentSaveInput {
  readonly document: ExtractedDocument;
  readonly source: SourceKey;
  readonly title?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly spaceId?: string | undefined;
  readonly turbo?: boolean | undefined;
  readonly id?: string | undefined;
  /** The source's memory when the caller looked it up already (null: it has none); undefined: looked up here. */
  readonly existing?: MemoryRecord | null | undefined;
}

/** Cuts extracted text to the content limit at a paragraph or word boundary (pages and PDFs can be long). */
export function fitContent(text: string): { content: string; truncated: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= MAX_CONTENT_BYTES) return { content: text, truncated: false };
  let cut = Buffer.from(text, 'utf8').subarray(0, MAX_CONTENT_BYTES).toString('utf8').replace(/\uFFFD$/, '');
  const boundary = Math.max(cut.lastIndexOf('\n\n'), cut.lastIndexOf(' '));
  if (boundary > cut.length * 0.8) cut = cut.slice(0, boundary);
  return { content: cut.trimEnd(), truncated: true };
}

/**
 * Saves a fetched page, uploaded file or watched file as a memory, idempotently by its source: the same URL
 * (or path) again updates its memory when the text changed and does nothing when it did not; the same file
 * bytes uploaded again find the memory they made. The user's metadata is kept beside the source's.
 */
export class DocumentSaves {
  constructor(
    private readonly storage: Storage,
    private readonly memories: MemoryService,
  ) {}

  async save(tenant: string, input: DocumentSaveInput): Promise<{ memory: MemoryRecord; outcome: SaveOutcome }> {
    const { content, metadata, title } = prepare(input);
    const existing = input.existing !== undefined ? input.existing : await this.storage.memories(tenant).findByMetadata(input.source.field, input.source.value);
    if (existing) {
      if (existing.contentHash === contentHash(content)) return { memory: existing, outcome: 'unchanged' };
      const memory = await this.memories.update(tenant, existing.id, {
        content,
        ...(title !== undefined ? { title } : {}),
        ...(input.tags !== undefined ? { tags: input.tags } : {}),
        metadata,
      });
      return { memory, outcome: 'updated' };
    }
    const memory = await this.memories.save(tenant, {
      content,
      title,
      tags: input.tags,
      metadata,
      spaceId: input.spaceId,
      turbo: input.turbo,
      id: input.id,
    });
    return { memory, outcome: 'created' };
  }

  /**
   * Documents whose sources have no memory yet (the caller looked them up), created as one batch
   * (MemoryService.saveMany: one embedding call, one commit per table). Settles per document, in order.
   */
  async createMany(
    tenant: string,
    inputs: readonly DocumentSaveInput[],
    options: { readonly beforeCommit?: () => Promise<boolean> } = {},
  ): Promise<PromiseSettledResult<MemoryRecord>[]> {
    const outcomes: PromiseSettledResult<MemoryRecord>[] = inputs.map(() => ({ status: 'rejected', reason: null }));
    const valid: { at: number; input: SaveInput }[] = [];
    inputs.forEach((input, at) => {
      try {
        const { content, metadata, title } = prepare(input);
        valid.push({ at, input: { content, title, tags: input.tags, metadata, spaceId: input.spaceId, turbo: input.turbo, id: input.id } });
      } catch (reason) {
        outcomes[at] = { status: 'rejected', reason };
      }
    });
    const saved = valid.length > 0 ? await this.memories.saveMany(tenant, valid.map(({ input }) => input), options) : [];
    saved.forEach((outcome, index) => {
      const entry = valid[index];
      if (entry) outcomes[entry.at] = outcome;
    });
    return outcomes;
  }
}

/** A document's content (cut to the limit), metadata (the source's, the user's, where it came from) and title. */
function prepare(input: DocumentSaveInput): { content: string; metadata: Record<string, unknown>; title: string | undefined } {
  const { content, truncated } = fitContent(input.document.text.trim());
  if (!content) throw new MemError('VALIDATION_ERROR', 'The document has no text to save.');
  const metadata = {
    ...input.document.metadata,
    ...(truncated ? { truncated: true } : {}),
    ...(input.metadata ?? {}),
    [input.source.field]: input.source.value,
  };
  return { content, metadata, title: input.title ?? input.document.title ?? undefined };
}
