import { createHash } from 'node:crypto';
import { MemError } from '../errors.js';
import { embedMany } from '../providers/embed-many.js';
import type { EmbeddingModel } from '../providers/spec.js';
import { normaliseAuthor } from './author.js';
import { embedPassages, memoryPassages } from './chunking.js';
import { isId, newId } from './ids.js';
import type { KnowledgeHooks } from './knowledge/knowledge-service.js';
import type { MemoryStore, Storage } from './ports.js';
import { SearchEngine, type SearchInput, type SearchResult } from './search/search-engine.js';
import { Cohort } from './search/cohort.js';
import type { SearchModel } from './search/model.js';
import { currentPriority } from './scheduling/priority.js';
import type { ChunkInput, MemoryFilter, MemoryRecord } from './types.js';

/** Content limit from the spec: 100 KB of UTF-8. */
export const MAX_CONTENT_BYTES = 100 * 1024;

export interface SaveInput {
  readonly content: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly spaceId?: string | undefined;
  readonly turbo?: boolean | undefined;
  /** Text that situates the memory (see MemoryRecord.context). */
  readonly context?: string | undefined;
  /** Who wrote or said it (see MemoryRecord.author). */
  readonly author?: string | undefined;
  /** Pre-allocated id (async saves allocate it when they are accepted). */
  readonly id?: string | undefined;
  /**
   * When the content was written or happened (epoch ms), for history imported later: stored as createdAt, so
   * the memory sorts, filters and histograms by it. At most MAX_CLOCK_SKEW_MS in the future; default now.
   */
  readonly createdAt?: number | undefined;
}

export interface UpdateInput {
  readonly title?: string | undefined;
  readonly content?: string | undefined;
  readonly description?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly spaceId?: string | undefined;
  readonly context?: string | undefined;
  readonly author?: string | undefined;
}

export type { SearchHit, SearchInput, SearchResult } from './search/search-engine.js';

export interface MemoryServiceDeps {
  readonly storage: Storage;
  readonly embedder: EmbeddingModel;
  /** Entity and fact extraction: told about every standard save, content change and deletion. */
  readonly knowledge?: KnowledgeHooks | undefined;
  readonly now?: () => number;
  /** The search scoring model (default: the fitted one; bench/fit-search.ts passes others). */
  readonly searchModel?: SearchModel | undefined;
}

const QUERY_CACHE_SIZE = 256;

/** How far in the future a given createdAt may lie (clocks of other machines drift). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** VALIDATION_ERROR for a createdAt that is not a time or lies in the future. */
export function assertCreatedAt(createdAt: number, now: number): void {
  if (!Number.isFinite(createdAt)) throw new MemError('VALIDATION_ERROR', 'createdAt must be an ISO 8601 date or date-time.');
  if (createdAt > now + MAX_CLOCK_SKEW_MS) {
    throw new MemError('VALIDATION_ERROR', `createdAt ${new Date(createdAt).toISOString()} is in the future.`, {
      details: { createdAt: new Date(createdAt).toISOString(), now: new Date(now).toISOString() },
      hint: 'createdAt is when the content was written or happened; leave it out for now.',
    });
  }
}

export function contentHash(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

export function assertContentSize(content: string): void {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MAX_CONTENT_BYTES) {
    throw new MemError(
      'CONTENT_TOO_LARGE',
      `Content is ${Math.ceil(bytes / 1024)} KB; the limit is 100 KB (${MAX_CONTENT_BYTES} bytes).`,
      { details: { bytes, limit: MAX_CONTENT_BYTES }, hint: 'Split the text into several memories.' },
    );
  }
}

export function assertMemoryId(id: string): void {
  if (!isId('memory', id)) {
    throw new MemError('VALIDATION_ERROR', 'Invalid memory id format', {
      details: { id },
      hint: 'Memory ids look like mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G.',
    });
  }
}

export function deriveTitle(content: string): string {
  const firstLine = content.trim().split('\n')[0]?.trim() ?? '';
  return firstLine.length <= 80 ? firstLine : `${firstLine.slice(0, 77).trimEnd()}...`;
}

export function uniqueTags(tags: readonly string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((tag) => tag.trim()).filter(Boolean))];
}

/**
 * Saving, reading, updating, deleting, listing and searching memories for one account at a time.
 * Knows nothing of HTTP or LanceDB: it works through the `Storage` port and an `EmbeddingModel`.
 */
export class MemoryService {
  private readonly now: () => number;
  private readonly queryCache = new Map<string, Float32Array>();
  private readonly engine: SearchEngine;
  private readonly cohort: Cohort;

  constructor(private readonly deps: MemoryServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.cohort = new Cohort(deps.embedder);
    this.engine = new SearchEngine({
      modelId: deps.embedder.modelId,
      embedQuery: (query) => this.embedQuery(query),
      cohort: (vector) => this.cohort.nearest(vector),
      ...(deps.searchModel ? { model: deps.searchModel } : {}),
      now: this.now,
    });
  }

  /** Starts preparing what search compares with (cohort.ts) in the background, so the first search need not wait. */
  prepareSearch(): void {
    this.cohort.prepare('background').catch(() => undefined);
  }

  private store(accountId: string): MemoryStore {
    return this.deps.storage.memories(accountId);
  }

  private async embedChunks(memory: Pick<MemoryRecord, 'content' | 'title' | 'context' | 'author'>): Promise<ChunkInput[]> {
    const [chunks] = await embedPassages([memoryPassages(memory.content, memory.title, memory.context, memory.author)], (texts) =>
      embedMany(this.deps.embedder, texts, { priority: currentPriority() }),
    );
    return chunks ?? [];
  }

  async save(accountId: string, input: SaveInput): Promise<MemoryRecord> {
    const [outcome] = await this.saveMany(accountId, [input]);
    if (!outcome) throw new MemError('INTERNAL_ERROR', 'The save produced no outcome.');
    if (outcome.status === 'rejected') throw outcome.reason;
    return outcome.value;
  }

  /**
   * Saves several memories as one batch (bulk ingest, a first scan): their passages go to the embedder in
   * one call, so its workers get full batches, and their rows are appended in one turn of the event loop,
   * so the table writer commits them together (a save at a time left 1-5 rows per commit, and every commit
   * is a fragment each later read goes through). Settles per input, in order: an invalid input fails alone.
   */
  async saveMany(
    accountId: string,
    inputs: readonly SaveInput[],
    options: {
      /**
       * Asked once the batch is embedded, before anything is written: false leaves every input unsaved
       * (rejected). Work under a lease (Claim.confirm) writes only while the lease is certainly its own.
       */
      readonly beforeCommit?: () => Promise<boolean>;
    } = {},
  ): Promise<PromiseSettledResult<MemoryRecord>[]> {
    const now = this.now();
    const outcomes: PromiseSettledResult<MemoryRecord>[] = inputs.map(() => ({ status: 'rejected', reason: null }));
    const valid: { at: number; input: SaveInput; title: string; createdAt: number; context: string; author: string }[] = [];
    inputs.forEach((input, at) => {
      try {
        if (!input.content.trim()) throw new MemError('VALIDATION_ERROR', 'content must not be empty.');
        assertContentSize(input.content);
        if (input.createdAt !== undefined) assertCreatedAt(input.createdAt, now);
        valid.push({
          at,
          input,
          title: input.title?.trim() || deriveTitle(input.content),
          createdAt: input.createdAt ?? now,
          context: input.context?.trim() ?? '',
          author: normaliseAuthor(input.author),
        });
      } catch (reason) {
        outcomes[at] = { status: 'rejected', reason };
      }
    });
    if (valid.length === 0) return outcomes;
    // The passages go to the embedding workers first; an inline extractor then works meanwhile (its own
    // thread, or the main thread): two cores busy instead of one after the other.
    const embedding = embedPassages(
      valid.map(({ input, title, context, author }) => memoryPassages(input.content, title, context, author)),
      (texts) => embedMany(this.deps.embedder, texts, { priority: currentPriority() }),
    );
    const started = valid.map(({ input, createdAt }) => (input.turbo ? null : (this.deps.knowledge?.extractAhead?.(input.content, createdAt) ?? null)));
    // The batch's extractions reach the knowledge service together, so they are applied as one knowledge
    // batch (one read of the entities they name, one commit per table). Handed over one by one as each
    // finished, the first few of a batch started a knowledge batch of their own, and so did each few that
    // finished during it: several small batches, each paying the reads and commits of a whole one. None of
    // them can commit before the batch's passages are embedded anyway (knowledge waits for its memory's commit).
    const allExtracted = Promise.allSettled(started);
    const extractions = started.map((extraction) => (extraction ? allExtracted.then(() => extraction) : null));
    for (const extraction of extractions) extraction?.catch(() => undefined);
    // With no lease to confirm first, the memory rows commit while their passages are embedded (the store
    // adds the passages when they arrive, and takes a row back if they fail): a save waits for the embedding
    // and one commit, not the embedding then the commits.
    let passagesOf: (index: number) => readonly ChunkInput[] | Promise<readonly ChunkInput[]>;
    if (options.beforeCommit === undefined) {
      passagesOf = (index) => embedding.then((chunks) => chunks[index] ?? []);
    } else {
      let chunks: ChunkInput[][];
      try {
        chunks = await embedding;
      } catch (reason) {
        for (const { at } of valid) outcomes[at] = { status: 'rejected', reason };
        return outcomes;
      }
      if (!(await options.beforeCommit())) {
        const reason = new MemError('INTERNAL_ERROR', 'The work this save belongs to moved to another daemon; nothing was written.');
        for (const { at } of valid) outcomes[at] = { status: 'rejected', reason };
        return outcomes;
      }
      passagesOf = (index) => chunks[index] ?? [];
    }
    const store = this.store(accountId);
    const saves = valid.map(({ input, title, createdAt, context, author }, index) => {
      const memory: MemoryRecord = {
        // Ids sort by time: a memory dated in the past gets an id of its date (ULIDs start in 1970).
        id: input.id ?? newId('memory', Math.max(0, Math.floor(createdAt))),
        title,
        content: input.content,
        description: input.description ?? '',
        tags: uniqueTags(input.tags),
        metadata: input.metadata ?? {},
        spaceId: input.spaceId ?? '',
        createdAt,
        updatedAt: null,
        contentHash: contentHash(input.content),
        turbo: input.turbo ?? false,
        context,
        author,
      };
      // Every insert of the batch starts in this same turn: the table writer appends them in one commit.
      const stored = store.insert(memory, passagesOf(index));
      // Turbo saves skip extraction; inline extractors finish before the save returns. The knowledge is
      // prepared while the memory commits (its entity lookups overlap that commit) and committed after it.
      const extraction = extractions[index];
      const knowing = memory.turbo
        ? undefined
        : this.deps.knowledge?.memorySaved(accountId, memory, { fresh: true, unseen: input.id === undefined, stored, ...(extraction ? { extraction } : {}) });
      return { memory, stored, knowing };
    });
    const settled = await Promise.allSettled(saves.map(({ stored }) => stored));
    // The passages are committed with their memory: search's term statistics count them in now.
    const savedTexts = await Promise.all(settled.map(async (outcome, index) => (outcome.status === 'fulfilled' ? (await passagesOf(index)).map((chunk) => chunk.text) : [])));
    this.engine.termStats.added(accountId, savedTexts.flat());
    // When a memory's own commit failed, its knowledge settles without committing anything.
    const known = await Promise.allSettled(saves.map(({ knowing }) => knowing));
    settled.forEach((outcome, index) => {
      const entry = valid[index];
      const save = saves[index];
      const knowledge = known[index];
      if (!entry || !save) return;
      if (outcome.status === 'rejected') outcomes[entry.at] = outcome;
      else if (knowledge?.status === 'rejected') outcomes[entry.at] = knowledge;
      else outcomes[entry.at] = { status: 'fulfilled', value: save.memory };
    });
    return outcomes;
  }

  async get(accountId: string, id: string): Promise<MemoryRecord> {
    assertMemoryId(id);
    const memory = await this.store(accountId).get(id);
    if (!memory) throw new MemError('NOT_FOUND', 'Memory not found', { details: { id } });
    return memory;
  }

  async update(accountId: string, id: string, input: UpdateInput): Promise<MemoryRecord> {
    const store = this.store(accountId);
    const existing = await this.get(accountId, id);
    if (input.content !== undefined) {
      if (!input.content.trim()) throw new MemError('VALIDATION_ERROR', 'content must not be empty.');
      assertContentSize(input.content);
    }
    const content = input.content ?? existing.content;
    // A title the save derived from the old content (none was given) follows the new content; one the user
    // chose stays. The record does not say which it was: a title equal to the old first line counts as derived.
    const derived = existing.title === deriveTitle(existing.content);
    const title =
      input.title !== undefined ? input.title.trim() || deriveTitle(content) : derived ? deriveTitle(content) : existing.title;
    const updated: MemoryRecord = {
      ...existing,
      title,
      content,
      description: input.description ?? existing.description,
      tags: input.tags !== undefined ? uniqueTags(input.tags) : existing.tags,
      metadata: input.metadata ?? existing.metadata,
      spaceId: input.spaceId ?? existing.spaceId,
      contentHash: contentHash(content),
      updatedAt: Math.max(this.now(), existing.createdAt),
      context: input.context !== undefined ? input.context.trim() : existing.context,
      author: input.author !== undefined ? normaliseAuthor(input.author) : existing.author,
    };
    // The title, the context and the author are indexed with every passage, so a change to any re-embeds too.
    const reembed =
      content !== existing.content ||
      title !== existing.title ||
      updated.context !== existing.context ||
      updated.author !== existing.author;
    await store.replace(updated, reembed ? await this.embedChunks(updated) : undefined);
    if (reembed) this.engine.termStats.changed(accountId);
    // New content replaces everything the old content contributed to entities, facts and the graph.
    if (content !== existing.content && !updated.turbo) await this.deps.knowledge?.memorySaved(accountId, updated);
    return updated;
  }

  /**
   * Runs the extraction a turbo save skipped: the memory becomes a standard one (later content updates
   * re-extract too). A memory that is already standard is extracted again, replacing what it produced.
   */
  async enrich(accountId: string, id: string): Promise<MemoryRecord> {
    const existing = await this.get(accountId, id);
    if (!this.deps.knowledge) {
      throw new MemError('INTERNAL_ERROR', 'Extraction is not configured in this daemon.');
    }
    const memory: MemoryRecord = { ...existing, turbo: false };
    if (existing.turbo) await this.store(accountId).replace(memory);
    await this.deps.knowledge.memorySaved(accountId, memory);
    return memory;
  }

  /** Ids of the memories saved through the turbo path and not enriched since. */
  turboIds(accountId: string): Promise<string[]> {
    return this.store(accountId).ids({ turbo: true });
  }

  /** Recomputes a memory's vectors in the current embedding space (reindex). */
  async reembed(accountId: string, id: string): Promise<boolean> {
    const store = this.store(accountId);
    const memory = await store.get(id);
    if (!memory) return false;
    await store.replace(memory, await this.embedChunks(memory));
    this.engine.termStats.changed(accountId);
    return true;
  }

  async delete(accountId: string, id: string): Promise<void> {
    assertMemoryId(id);
    const deleted = await this.deleteExisting(accountId, [id]);
    if (deleted.length === 0) throw new MemError('NOT_FOUND', 'Memory not found', { details: { id } });
  }

  async deleteMany(
    accountId: string,
    ids: readonly string[],
  ): Promise<{ deleted: string[]; failed: { id: string; error: string }[] }> {
    const unique = [...new Set(ids)];
    const wellFormed = unique.filter((id) => isId('memory', id));
    const deleted = await this.deleteExisting(accountId, wellFormed);
    const gone = new Set(deleted);
    const failed = unique
      .filter((id) => !gone.has(id))
      .map((id) => ({ id, error: isId('memory', id) ? 'Memory not found' : 'Invalid memory id format' }));
    return { deleted, failed };
  }

  /**
   * Knowledge first, then the memory: a crash in between leaves a memory without knowledge (re-extracted by
   * its next update), never knowledge pointing at a deleted memory.
   */
  private async deleteExisting(accountId: string, ids: readonly string[]): Promise<string[]> {
    const store = this.store(accountId);
    if (this.deps.knowledge && ids.length > 0) {
      const existing = (await store.getMany(ids)).map((memory) => memory.id);
      await this.deps.knowledge.memoriesDeleted(accountId, existing);
    }
    const deleted = await store.delete(ids);
    if (deleted.length > 0) this.engine.termStats.changed(accountId);
    return deleted;
  }

  list(accountId: string, filter: MemoryFilter, page: { limit: number; offset: number }) {
    return this.store(accountId).list(filter, page);
  }

  count(accountId: string): Promise<number> {
    return this.store(accountId).count();
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const key = text.trim();
    const cached = this.queryCache.get(key);
    if (cached) {
      // Refresh recency: Map iteration order is insertion order.
      this.queryCache.delete(key);
      this.queryCache.set(key, cached);
      return cached;
    }
    const [vector] = await embedMany(this.deps.embedder, [key], { priority: currentPriority() });
    if (!vector) throw new MemError('INTERNAL_ERROR', 'The embedder returned no vector.');
    this.queryCache.set(key, vector);
    if (this.queryCache.size > QUERY_CACHE_SIZE) {
      const oldest = this.queryCache.keys().next().value;
      if (oldest !== undefined) this.queryCache.delete(oldest);
    }
    return vector;
  }

  search(accountId: string, input: SearchInput & { readonly explain?: boolean }): Promise<SearchResult> {
    return this.engine.search(this.store(accountId), input);
  }
}
