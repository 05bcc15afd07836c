import { createHash } from 'node:crypto';
import { MemError } from '../errors.js';
import { embedMany } from '../providers/embed-many.js';
import type { EmbeddingModel } from '../providers/spec.js';
import { nameMatcher, properNouns } from './answers/text.js';
import { normaliseAuthor } from './author.js';
import { embedPassages, memoryPassages } from './chunking.js';
import { isId, newId } from './ids.js';
import type { KnowledgeHooks } from './knowledge/knowledge-service.js';
import type { MemoryStore, Storage } from './ports.js';
import { calibrate, hybridRaw, round4, scoringFor } from './scoring.js';
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

export interface SearchInput {
  readonly query: string;
  readonly limit: number;
  readonly offset: number;
  readonly threshold: number;
  readonly hybrid: boolean;
  readonly filter: MemoryFilter;
}

export interface SearchHit {
  readonly memory: MemoryRecord;
  readonly score: number;
  /** The passage that matched best. */
  readonly seq: number;
}

export interface SearchResult {
  readonly hits: SearchHit[];
  /** Memories at or above the threshold among the ranked candidates. */
  readonly total: number;
}

export interface MemoryServiceDeps {
  readonly storage: Storage;
  readonly embedder: EmbeddingModel;
  /** Entity and fact extraction: told about every standard save, content change and deletion. */
  readonly knowledge?: KnowledgeHooks | undefined;
  readonly now?: () => number;
}

/** Candidate passages fetched per requested result: memories with several matching passages collapse. */
const CANDIDATES_PER_RESULT = 4;
const MIN_CANDIDATES = 50;
const MAX_CANDIDATES = 1000;
/**
 * Subtracted from a hybrid candidate's raw score (cosine + weighted BM25) when its title and content mention
 * none of the names in the query (capitalised phrases, answers/text.ts properNouns); a share of it when they
 * mention some. A name is a precise constraint that a sentence embedder blurs and BM25 weighs by rarity
 * only: a person named in half a conversation has a low IDF, yet a question about her is about the memories
 * that name her. For the ranking a penalty is the same as a bonus for mentions; as a penalty, the scores of
 * the memories that do name them keep their calibrated meaning, and the default threshold drops more of
 * those that do not. On the real store's candidates, nDCG@10 LoCoMo-dev (turns saved with their context)
 * 0.524 -> 0.543 (0.540 through the API with CONTEXT_NAME_SHARE), SciFact-train 0.705 -> 0.707; 0.1-0.3 are
 * within 0.006 of each other on both.
 */
const NAME_PENALTY = 0.15;
/**
 * How much a name found only in a memory's context counts: half, as the context's words weigh half the
 * memory's own in its keyword text (LoCoMo-dev 0.543 -> 0.541 offline, where every turn's context names the
 * other speaker; a reply whose context names what the query asks about is not penalised in full).
 */
const CONTEXT_NAME_SHARE = 0.5;
/**
 * Subtracted from a hybrid candidate's raw score when the query names an author of the candidates and the
 * memory was written or said by someone else: a question about what Caroline did is about Caroline's own
 * messages first; a memory without an author is not affected, nor are any when the query's names are no
 * candidate's author (so a capitalised word that happens to be a name costs nothing here). Mentions still
 * earn their share of NAME_PENALTY. On the real store's LoCoMo-dev candidates (each turn saved with its
 * speaker as author), nDCG@10 0.539 -> 0.575 / 0.586 / 0.598 / 0.600 at 0.1 / 0.2 / 0.3 / 0.5; letting a
 * mention of the named person halve it did worse (0.582 at 0.3). Through the API (bench/retrieval-dialog.ts)
 * 0.540 -> 0.599. SciFact has no authors.
 */
const AUTHOR_PENALTY = 0.3;
/** At most this many candidates are read to look for the query's names. */
const NAME_WINDOW_MAX = 400;
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

  constructor(private readonly deps: MemoryServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  private store(accountId: string): MemoryStore {
    return this.deps.storage.memories(accountId);
  }

  private async embedChunks(memory: Pick<MemoryRecord, 'content' | 'title' | 'context' | 'author'>): Promise<ChunkInput[]> {
    const [chunks] = await embedPassages([memoryPassages(memory.content, memory.title, memory.context, memory.author)], (texts) =>
      embedMany(this.deps.embedder, texts),
    );
    return chunks ?? [];
  }

  async save(accountId: string, input: SaveInput): Promise<MemoryRecord> {
    if (!input.content.trim()) throw new MemError('VALIDATION_ERROR', 'content must not be empty.');
    assertContentSize(input.content);
    const title = input.title?.trim() || deriveTitle(input.content);
    const now = this.now();
    if (input.createdAt !== undefined) assertCreatedAt(input.createdAt, now);
    const createdAt = input.createdAt ?? now;
    const turbo = input.turbo ?? false;
    // The passages go to the embedding worker first; an inline extractor then works on the main thread
    // meanwhile (two cores busy instead of one after the other).
    const context = input.context?.trim() ?? '';
    const author = normaliseAuthor(input.author);
    const embedding = this.embedChunks({ content: input.content, title, context, author });
    const extraction = turbo ? null : (this.deps.knowledge?.extractAhead?.(input.content, createdAt) ?? null);
    const chunks = await embedding;
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
      turbo,
      context,
      author,
    };
    const stored = this.store(accountId).insert(memory, chunks);
    // Turbo saves skip extraction; inline extractors finish before the save returns. The knowledge is
    // prepared while the memory commits (its entity lookups overlap that commit) and committed after it.
    const knowing = memory.turbo
      ? undefined
      : this.deps.knowledge?.memorySaved(accountId, memory, { fresh: true, unseen: input.id === undefined, stored, ...(extraction ? { extraction } : {}) });
    try {
      await stored;
    } finally {
      // When the memory's own commit failed, this settles without committing anything.
      await knowing;
    }
    return memory;
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
    const title = input.title !== undefined ? input.title.trim() || deriveTitle(content) : existing.title;
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
    return store.delete(ids);
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
    const [vector] = await embedMany(this.deps.embedder, [key]);
    if (!vector) throw new MemError('INTERNAL_ERROR', 'The embedder returned no vector.');
    this.queryCache.set(key, vector);
    if (this.queryCache.size > QUERY_CACHE_SIZE) {
      const oldest = this.queryCache.keys().next().value;
      if (oldest !== undefined) this.queryCache.delete(oldest);
    }
    return vector;
  }

  /**
   * Hybrid search with names in the query: takes NAME_PENALTY x (share of the names a memory does not
   * mention) off each candidate's raw score, and AUTHOR_PENALTY off memories by an author the query does not
   * name when it names an author of the candidates. Only candidates that could reach the requested page are
   * read (those within NAME_PENALTY of the page's last raw score, at most NAME_WINDOW_MAX); the others take
   * the largest penalty, which keeps them below every candidate read, and makes `total` a lower bound.
   * Returns the memories it read, for the page.
   */
  private async weighNames(
    store: MemoryStore,
    input: SearchInput,
    candidates: { memoryId: string; raw: number }[],
  ): Promise<Map<string, MemoryRecord>> {
    const names = properNouns(input.query);
    if (names.length === 0 || candidates.length === 0) return new Map();
    const byRaw = [...candidates].sort((a, b) => b.raw - a.raw);
    const last = byRaw[Math.min(byRaw.length, input.offset + input.limit) - 1]?.raw ?? Number.NEGATIVE_INFINITY;
    const window = byRaw.filter((candidate) => candidate.raw >= last - NAME_PENALTY).slice(0, NAME_WINDOW_MAX);
    const memories = new Map((await store.getMany(window.map((candidate) => candidate.memoryId))).map((memory) => [memory.id, memory]));
    const mentions = nameMatcher(names);
    // The authors the query names, among those of the memories read.
    const named = new Set<string>();
    for (const memory of memories.values()) if (memory.author && mentions(memory.author) > 0) named.add(memory.author);
    for (const candidate of candidates) {
      const memory = memories.get(candidate.memoryId);
      if (!memory) {
        candidate.raw -= NAME_PENALTY + (named.size > 0 ? AUTHOR_PENALTY : 0);
        continue;
      }
      // A name in the context counts half, as the context's words do in the keyword text; the author counts
      // as a mention.
      const share = Math.max(
        mentions(memory.author),
        mentions(`${memory.title}\n${memory.content}`),
        CONTEXT_NAME_SHARE * mentions(memory.context),
      );
      const byOther = named.size > 0 && memory.author !== '' && !named.has(memory.author);
      candidate.raw -= NAME_PENALTY * (1 - share) + (byOther ? AUTHOR_PENALTY : 0);
    }
    return memories;
  }

  async search(accountId: string, input: SearchInput): Promise<SearchResult> {
    const store = this.store(accountId);
    const depth = Math.min(
      MAX_CANDIDATES,
      Math.max(MIN_CANDIDATES, (input.offset + input.limit) * CANDIDATES_PER_RESULT),
    );
    const vector = await this.embedQuery(input.query);
    const [vectorHits, keywordHits] = await Promise.all([
      store.vectorSearch(vector, input.filter, depth),
      input.hybrid ? store.keywordSearch(input.query, input.filter, depth) : Promise.resolve([]),
    ]);
    const scoring = scoringFor(this.deps.embedder.modelId);
    const best = new Map<string, { similarity: number | null; bm25: number; seq: number }>();
    for (const hit of vectorHits) {
      const entry = best.get(hit.memoryId);
      if (!entry || (entry.similarity ?? -1) < hit.similarity) {
        best.set(hit.memoryId, { similarity: hit.similarity, bm25: entry?.bm25 ?? 0, seq: hit.seq });
      }
    }
    for (const hit of keywordHits) {
      const entry = best.get(hit.memoryId);
      if (!entry) best.set(hit.memoryId, { similarity: null, bm25: hit.score, seq: hit.seq });
      else if (hit.score > entry.bm25) entry.bm25 = hit.score;
    }
    // Not among the top `depth` passages by vector: its similarity is at most the weakest candidate's.
    const floor = vectorHits.length > 0 ? Math.min(...vectorHits.map((hit) => hit.similarity)) : 0;
    const candidates = [...best.entries()].map(([memoryId, entry]) => {
      const similarity = entry.similarity ?? floor;
      return { memoryId, seq: entry.seq, raw: input.hybrid ? hybridRaw(similarity, entry.bm25, scoring) : similarity };
    });
    const fetched = input.hybrid ? await this.weighNames(store, input, candidates) : new Map<string, MemoryRecord>();
    const ranked = candidates
      .map(({ memoryId, seq, raw }) => ({ memoryId, seq, score: calibrate(raw, input.hybrid ? scoring.hybrid : scoring.semantic) }))
      .filter((entry) => entry.score >= input.threshold)
      .sort((a, b) => b.score - a.score || (a.memoryId < b.memoryId ? -1 : 1));
    const page = ranked.slice(input.offset, input.offset + input.limit);
    const missing = page.filter((entry) => !fetched.has(entry.memoryId)).map((entry) => entry.memoryId);
    for (const memory of await store.getMany(missing)) fetched.set(memory.id, memory);
    const hits: SearchHit[] = [];
    for (const entry of page) {
      const memory = fetched.get(entry.memoryId);
      // A memory deleted between the two reads simply drops out.
      if (memory) hits.push({ memory, score: round4(entry.score), seq: entry.seq });
    }
    return { hits, total: ranked.length };
  }
}
