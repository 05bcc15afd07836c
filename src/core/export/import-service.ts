import type { z } from 'zod';
import { MemError } from '../../errors.js';
import { embedMany } from '../../providers/embed-many.js';
import type { EmbeddingModel } from '../../providers/spec.js';
import { normaliseAuthor } from '../author.js';
import { embedPassages, memoryPassages } from '../chunking.js';
import { deriveEdge, deriveEntity, deriveFact } from '../knowledge/derive.js';
import type { KnowledgeHooks } from '../knowledge/knowledge-service.js';
import type { EdgeRecord, ExtractionStatusRecord, FactRecord, KnowledgeStore } from '../knowledge/types.js';
import { assertContentSize, assertCreatedAt, contentHash, deriveTitle, uniqueTags } from '../memory-service.js';
import type { MemoryStore, MemoryWithChunks, Storage } from '../ports.js';
import { inBackground } from '../scheduling/priority.js';
import type { ChunkInput, MemoryRecord, WatchRecord } from '../types.js';
import {
  derivedMemoryId,
  edgeInput,
  edgeLine,
  entityInput,
  entityLine,
  EXPORT_VERSION,
  factInput,
  factLine,
  headerInput,
  memoryInput,
  memoryLine,
  spaceInput,
  toEdge,
  toEntity,
  toFact,
  toStatus,
  toWatch,
  watchInput,
  watchLine,
  type EdgeInput,
  type EntityInput,
  type FactInput,
  type HeaderInput,
  type MemoryInput,
  type WatchInput,
} from './format.js';
import { withStoredContributions, withStoredSupports, withValidity, type EntityWithContributions } from './import-merge.js';

export type ImportOutcome = 'created' | 'updated' | 'unchanged' | 'failed';
export type ImportRecordType = 'memory' | 'entity' | 'fact' | 'edge' | 'space' | 'watch';
const RECORD_TYPES: readonly ImportRecordType[] = ['memory', 'entity', 'fact', 'edge', 'space', 'watch'];

export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

export interface ImportError {
  readonly index: number;
  readonly type: string | null;
  readonly id: string | null;
  readonly error: string;
}

export interface ImportReport extends ImportCounts {
  readonly dryRun: boolean;
  readonly processed: number;
  readonly byType: Record<ImportRecordType, ImportCounts>;
  readonly errors: ImportError[];
}

/** One record of a request: a parsed JSON value, or why its line could not be parsed. */
export type ImportRecord = { readonly value: unknown } | { readonly error: string };

export interface ImportOptions {
  readonly dryRun: boolean;
  /** Folder watches only for the owner: the daemon reads their folders with its own permissions. */
  readonly allowWatches: boolean;
  /** The space of memory lines that name none (the profile's default space). */
  readonly defaultSpace?: string | undefined;
  /** Refuses (LIMIT_EXCEEDED) when the new memories would pass the plan's limits. */
  readonly assertCanStore?: (adding: { memories: number; bytes: number }) => Promise<void>;
}

/** What import needs of the knowledge service: the save hooks, and its per-account serialisation. */
export interface ImportKnowledge extends KnowledgeHooks {
  serialize<T>(accountId: string, work: () => Promise<T>): Promise<T>;
}

export interface ImportServiceDeps {
  readonly storage: Storage;
  readonly embedder: EmbeddingModel;
  readonly knowledge: ImportKnowledge;
  /** Starts following an imported watch (WatchService.adopt); without it, watches start with the daemon. */
  readonly adoptWatch?: (record: WatchRecord) => Promise<void>;
  readonly now?: () => number;
  readonly onError?: (error: unknown, context: Record<string, unknown>) => void;
}

interface Item<T> {
  readonly index: number;
  readonly line: T;
}

const message = (error: unknown): string => (error instanceof MemError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error));

function zodMessage(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') + ': ' : ''}${issue.message}`)
    .join('; ');
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

class Tally {
  readonly byType = Object.fromEntries(RECORD_TYPES.map((type) => [type, { created: 0, updated: 0, unchanged: 0, failed: 0 }])) as Record<
    ImportRecordType,
    ImportCounts
  >;
  readonly errors: ImportError[] = [];

  count(type: ImportRecordType, outcome: Exclude<ImportOutcome, 'failed'>): void {
    this.byType[type][outcome]++;
  }

  fail(index: number, type: string | null, id: string | null, error: string): void {
    if (type !== null && (RECORD_TYPES as readonly string[]).includes(type)) this.byType[type as ImportRecordType].failed++;
    this.errors.push({ index, type, id, error });
  }

  report(dryRun: boolean, processed: number): ImportReport {
    const total = { created: 0, updated: 0, unchanged: 0, failed: 0 };
    for (const counts of Object.values(this.byType)) {
      total.created += counts.created;
      total.updated += counts.updated;
      total.unchanged += counts.unchanged;
      total.failed += counts.failed;
    }
    // Records of no known type count as failed too.
    total.failed += this.errors.filter((error) => error.type === null || !(RECORD_TYPES as readonly string[]).includes(error.type)).length;
    return { dryRun, processed, ...total, byType: this.byType, errors: this.errors.sort((a, b) => a.index - b.index) };
  }
}

/**
 * Keeps the last record of each id. An earlier copy that is identical changes nothing (unchanged); an
 * earlier different one fails (the request says two things about one record).
 */
function lastById<T extends { id: string }>(items: readonly Item<T>[], type: ImportRecordType, tally: Tally): Item<T>[] {
  const byId = new Map<string, Item<T>>();
  for (const item of items) {
    const earlier = byId.get(item.line.id);
    if (earlier && same(earlier.line, item.line)) tally.count(type, 'unchanged');
    else if (earlier) tally.fail(earlier.index, type, item.line.id, `${item.line.id} appears again later in this request; the later record was imported`);
    byId.set(item.line.id, item);
  }
  return [...byId.values()];
}

/** A memory line's space and text, as the lookup of what an earlier import made of it keys them. */
function importKey(spaceId: string, content: string): string {
  return `${spaceId}\u0000${content}`;
}

/**
 * Restores export records into one tenant, idempotently. Every record keeps its id and times. A record
 * whose id the tenant has is compared with it: identical -> unchanged (nothing is written), different ->
 * updated (replaced by the file's version); a new id -> created. An id that another tenant of this data
 * directory uses is refused (rows are keyed by id). Memories reuse the file's vectors when they come from
 * this daemon's embedding model (header) and match the passages, else they are embedded; entities, facts
 * and edges are written as they are (never re-extracted), so the knowledge graph round-trips, merged by
 * memory with what the tenant's other memories contribute to them (import-merge.ts). A memory
 * line without `extraction` is extracted like a save (standard memories that are new or whose content
 * changed). Requests are independent: a large file is sent in batches, memories before their knowledge.
 */
export class ImportService {
  private readonly now: () => number;

  constructor(private readonly deps: ImportServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async import(tenant: string, records: readonly ImportRecord[], options: ImportOptions): Promise<ImportReport> {
    const tally = new Tally();
    let header: HeaderInput | null = null;
    const memories: Item<MemoryInput>[] = [];
    const entities: Item<EntityInput>[] = [];
    const facts: Item<FactInput>[] = [];
    const edges: Item<EdgeInput>[] = [];
    const watches: Item<WatchInput>[] = [];

    records.forEach((record, index) => {
      if ('error' in record) return tally.fail(index, null, null, record.error);
      const value = record.value as { type?: unknown; id?: unknown } | null;
      const type = value && typeof value === 'object' && typeof value.type === 'string' ? value.type : null;
      const id = value && typeof value === 'object' && typeof value.id === 'string' ? value.id : null;
      const parse = <T>(schema: z.ZodType<T>): T | null => {
        const parsed = schema.safeParse(value);
        if (parsed.success) return parsed.data;
        tally.fail(index, type, id, zodMessage(parsed.error));
        return null;
      };
      switch (type) {
        case 'header': {
          const line = parse(headerInput);
          if (line && line.version > EXPORT_VERSION) {
            throw new MemError('VALIDATION_ERROR', `The file is in export format version ${line.version}; this mem reads version ${EXPORT_VERSION}.`, {
              hint: 'Upgrade mem to import it.',
            });
          }
          if (line) header = line;
          return;
        }
        case 'end':
          return;
        case 'memory': {
          const line = parse(memoryInput);
          if (line) memories.push({ index, line });
          return;
        }
        case 'entity': {
          const line = parse(entityInput);
          if (line) entities.push({ index, line });
          return;
        }
        case 'fact': {
          const line = parse(factInput);
          if (line) facts.push({ index, line });
          return;
        }
        case 'edge': {
          const line = parse(edgeInput);
          if (line) edges.push({ index, line });
          return;
        }
        case 'space':
          // Spaces exist through their memories: the line only describes them.
          if (parse(spaceInput)) tally.count('space', 'unchanged');
          return;
        case 'watch': {
          const line = parse(watchInput);
          if (line) watches.push({ index, line });
          return;
        }
        default:
          tally.fail(index, type, id, `unknown record type ${JSON.stringify(type)}: expected header, memory, entity, fact, edge, space, watch or end`);
      }
    });

    await this.importMemories(tenant, memories, header, options, tally);
    await this.importEntities(tenant, lastById(entities, 'entity', tally), options, tally);
    await this.importFacts(tenant, lastById(facts, 'fact', tally), options, tally);
    await this.importEdges(tenant, lastById(edges, 'edge', tally), options, tally);
    await this.importWatches(tenant, lastById(watches, 'watch', tally), options, tally);
    return tally.report(options.dryRun, records.length);
  }

  // ---- memories -------------------------------------------------------------------------------------

  /**
   * For the lines with neither id nor time (a JSON item without createdAt): the creation time of the memory an
   * earlier import made of the same text in the same space, by space and text. Such a memory's id is derived
   * from its own time, space and text, which tells it from a memory saved otherwise with the same text.
   */
  private async importedBefore(store: MemoryStore, items: readonly Item<MemoryInput>[]): Promise<Map<string, number>> {
    const undated = items.filter(({ line }) => line.id === undefined && line.createdAt === undefined);
    const found = new Map<string, number>();
    if (undated.length === 0) return found;
    for (const memory of await store.findManyByContentHash(undated.map(({ line }) => contentHash(line.content)))) {
      if (memory.id !== derivedMemoryId(memory.content, memory.createdAt, memory.spaceId)) continue;
      const key = importKey(memory.spaceId, memory.content);
      // Imported twice at two times before this fix: the first one stands.
      found.set(key, Math.min(found.get(key) ?? Infinity, memory.createdAt));
    }
    return found;
  }

  private async importMemories(
    tenant: string,
    items: readonly Item<MemoryInput>[],
    header: HeaderInput | null,
    options: ImportOptions,
    tally: Tally,
  ): Promise<void> {
    if (items.length === 0) return;
    const store = this.deps.storage.memories(tenant);
    const knowledge = this.deps.storage.knowledge(tenant);
    const now = this.now();

    // Ids first (a line without one gets the id of its content and time), then the checks that need no store.
    const imported = await this.importedBefore(store, items);
    const valid: Item<MemoryInput & { id: string }>[] = [];
    for (const { index, line } of items) {
      const spaceId = line.spaceId ?? options.defaultSpace ?? '';
      // A line with neither id nor time is dated by the memory an earlier import made of it, else now.
      const createdAt = line.createdAt ?? (line.id === undefined ? imported.get(importKey(spaceId, line.content)) : undefined) ?? now;
      const id = line.id ?? derivedMemoryId(line.content, createdAt, spaceId);
      try {
        assertContentSize(line.content);
        if (line.createdAt !== undefined) assertCreatedAt(line.createdAt, now);
      } catch (error) {
        tally.fail(index, 'memory', id, message(error));
        continue;
      }
      valid.push({ index, line: { ...line, id, spaceId, ...(line.id === undefined ? { createdAt } : {}) } });
    }
    const unique = lastById(valid, 'memory', tally);
    const ids = unique.map((item) => item.line.id);
    const existing = new Map((await store.getMany(ids)).map((memory) => [memory.id, memory]));
    const existingIds = [...existing.keys()];
    const [taken, statuses, embedded] = await Promise.all([
      store.takenElsewhere(ids.filter((id) => !existing.has(id))),
      knowledge.statusesOf(existingIds),
      store.idsWithVectors(existingIds),
    ]);
    const takenIds = new Set(taken);
    const statusOf = new Map(statuses.map((status) => [status.memoryId, status]));
    const hasVectors = new Set(embedded);

    interface Planned {
      readonly item: Item<MemoryInput & { id: string }>;
      readonly memory: MemoryRecord;
      readonly previous: MemoryRecord | undefined;
      readonly status: ExtractionStatusRecord | null;
      readonly outcome: 'created' | 'updated';
    }
    const planned: Planned[] = [];
    for (const item of unique) {
      const { line } = item;
      if (takenIds.has(line.id)) {
        tally.fail(item.index, 'memory', line.id, `${line.id} belongs to another account or sandbox of this daemon; import into that one`);
        continue;
      }
      const previous = existing.get(line.id);
      const previousStatus = statusOf.get(line.id) ?? null;
      const memory: MemoryRecord = {
        id: line.id,
        title: line.title?.trim() || deriveTitle(line.content),
        content: line.content,
        description: line.description ?? '',
        tags: uniqueTags(line.tags),
        metadata: line.metadata ?? {},
        spaceId: line.spaceId ?? '',
        // A line without times keeps the memory's (importing it again changes nothing).
        createdAt: line.createdAt ?? previous?.createdAt ?? now,
        updatedAt: line.updatedAt !== undefined ? line.updatedAt : (previous?.updatedAt ?? null),
        contentHash: contentHash(line.content),
        turbo: line.turbo ?? previous?.turbo ?? false,
        context: line.context?.trim() ?? '',
        author: normaliseAuthor(line.author),
      };
      const status = line.extraction === undefined ? previousStatus : line.extraction === null ? null : toStatus(line.id, line.extraction);
      if (previous && hasVectors.has(line.id) && same(memoryLine(previous, previousStatus), memoryLine(memory, status))) {
        tally.count('memory', 'unchanged');
        continue;
      }
      planned.push({ item, memory, previous, status, outcome: previous ? 'updated' : 'created' });
    }
    if (options.dryRun || planned.length === 0) {
      for (const entry of planned) tally.count('memory', entry.outcome);
      return;
    }

    const created = planned.filter((entry) => entry.outcome === 'created');
    await options.assertCanStore?.({
      memories: created.length,
      bytes: planned.reduce((sum, entry) => sum + Buffer.byteLength(entry.memory.content, 'utf8'), 0),
    });
    try {
      const entries = await this.chunksFor(store, planned, header, hasVectors);
      // New content replaces what the old content contributed to the knowledge graph.
      const changed = new Set(
        planned
          .filter((entry) => entry.previous && entry.previous.contentHash !== entry.memory.contentHash && !entry.previous.turbo)
          .map((entry) => entry.memory.id),
      );
      // (which drops their extraction status too: the file's, if it has one, is written below)
      if (changed.size > 0) await this.deps.knowledge.memoriesDeleted(tenant, [...changed]);
      await store.putMany(entries);
      const statusesToPut = planned.flatMap((entry) =>
        entry.item.line.extraction && entry.status && (changed.has(entry.memory.id) || !same(entry.status, statusOf.get(entry.memory.id) ?? null))
          ? [entry.status]
          : [],
      );
      const statusesToDrop = planned.flatMap((entry) => (entry.item.line.extraction === null && statusOf.has(entry.memory.id) ? [entry.memory.id] : []));
      if (statusesToPut.length > 0) await knowledge.putStatuses(statusesToPut);
      if (statusesToDrop.length > 0) await knowledge.deleteStatus(statusesToDrop);
    } catch (error) {
      for (const entry of planned) tally.fail(entry.item.index, 'memory', entry.memory.id, message(error));
      return;
    }
    const extract: MemoryRecord[] = [];
    for (const entry of planned) {
      tally.count('memory', entry.outcome);
      // No extraction in the file: extract as a save would (new standard memories and changed content).
      const contentChanged = !entry.previous || entry.previous.contentHash !== entry.memory.contentHash;
      if (entry.item.line.extraction === undefined && !entry.memory.turbo && contentChanged) extract.push(entry.memory);
    }
    // All at once, as background work: the extraction thread takes them in turn (requests first) and their
    // knowledge is committed in batches; one after another, each waited for its own knowledge commits.
    await Promise.all(extract.map((memory) => inBackground(() => this.deps.knowledge.memorySaved(tenant, memory))));
  }

  /** Passages and vectors of each planned memory: the file's, the stored ones, or newly embedded. */
  private async chunksFor(
    store: MemoryStore,
    planned: readonly { memory: MemoryRecord; previous: MemoryRecord | undefined; item: Item<MemoryInput> }[],
    header: HeaderInput | null,
    hasVectors: ReadonlySet<string>,
  ): Promise<MemoryWithChunks[]> {
    const space = this.deps.storage.vectorSpace;
    const sameSpace = header?.embedding?.modelId === space.modelId && header.embedding.dimension === space.dimension;
    const chunks = new Map<string, ChunkInput[]>();
    const reuse: string[] = [];
    const embed: MemoryRecord[] = [];
    for (const { memory, previous, item } of planned) {
      const fromFile = sameSpace ? fileChunks(item.line, memory, space.dimension) : null;
      if (fromFile) chunks.set(memory.id, fromFile);
      else if (previous && hasVectors.has(memory.id) && previous.content === memory.content && previous.title === memory.title && previous.context === memory.context && previous.author === memory.author) reuse.push(memory.id);
      else embed.push(memory);
    }
    for (const [id, stored] of await store.chunksOf(reuse)) chunks.set(id, stored);
    const embedded = await embedPassages(
      embed.map((memory) => memoryPassages(memory.content, memory.title, memory.context, memory.author)),
      (texts) => embedMany(this.deps.embedder, texts, { priority: 'background' }),
    );
    for (const [index, memory] of embed.entries()) chunks.set(memory.id, embedded[index] ?? []);
    return planned.map(({ memory }) => ({ memory, chunks: chunks.get(memory.id) ?? [] }));
  }

  // ---- knowledge ------------------------------------------------------------------------------------

  /** The memories of this tenant among `ids` (knowledge keeps only what existing memories contribute). */
  private async present(tenant: string, ids: Iterable<string>): Promise<Set<string>> {
    return new Set(await this.deps.storage.memories(tenant).existingIds([...new Set(ids)]));
  }

  /**
   * Compares each record with the stored one of its id, refuses ids of other tenants, and writes what is
   * new or different in one knowledge change (between the account's extractions), with `extra`: stored
   * records the change alters that the request does not name (a fact's validity).
   */
  private async apply<T extends { id: string }>(
    tenant: string,
    type: 'entity' | 'fact' | 'edge',
    records: readonly { index: number; record: T }[],
    stored: ReadonlyMap<string, T>,
    line: (record: T) => unknown,
    write: (store: KnowledgeStore, records: T[]) => Promise<void>,
    options: ImportOptions,
    tally: Tally,
    extra: readonly T[] = [],
  ): Promise<void> {
    if (records.length === 0) return;
    const store = this.deps.storage.knowledge(tenant);
    const ids = records.map((entry) => entry.record.id);
    const table = type === 'entity' ? 'entities' : type === 'fact' ? 'facts' : 'edges';
    const taken = new Set(await store.takenElsewhere(table, ids.filter((id) => !stored.has(id))));
    const changes: { index: number; record: T; outcome: 'created' | 'updated' }[] = [];
    for (const { index, record } of records) {
      if (taken.has(record.id)) {
        tally.fail(index, type, record.id, `${record.id} belongs to another account or sandbox of this daemon; import into that one`);
        continue;
      }
      const previous = stored.get(record.id);
      if (previous && same(line(previous), line(record))) tally.count(type, 'unchanged');
      else changes.push({ index, record, outcome: previous ? 'updated' : 'created' });
    }
    const written = [...changes.map((change) => change.record), ...extra.filter((record) => !taken.has(record.id))];
    if (!options.dryRun && written.length > 0) {
      try {
        await this.deps.knowledge.serialize(tenant, () => write(store, written));
      } catch (error) {
        for (const change of changes) tally.fail(change.index, type, change.record.id, message(error));
        return;
      }
    }
    for (const change of changes) tally.count(type, change.outcome);
  }

  private async importEntities(tenant: string, items: readonly Item<EntityInput>[], options: ImportOptions, tally: Tally): Promise<void> {
    if (items.length === 0) return;
    const records: { index: number; record: EntityWithContributions }[] = [];
    const memories = options.dryRun ? null : await this.present(tenant, items.flatMap((item) => Object.keys(item.line.contributions)));
    for (const { index, line } of items) {
      const { entity, documents } = toEntity(line);
      // Contributions of memories this tenant lacks (their lines failed) are dropped, as a deletion would.
      const entries = Object.entries(documents);
      if (memories && !entries.every(([memoryId]) => memories.has(memoryId))) {
        const present = Object.fromEntries(entries.filter(([memoryId]) => memories.has(memoryId)));
        const kept = deriveEntity(entity, present);
        if (!kept) tally.fail(index, 'entity', line.id, 'none of the memories it comes from is in this account');
        else records.push({ index, record: { id: kept.id, entity: kept, documents: present } });
      } else records.push({ index, record: { id: entity.id, entity, documents } });
    }
    const store = this.deps.storage.knowledge(tenant);
    const ids = records.map(({ record }) => record.id);
    const [entities, contributions] = await Promise.all([store.entitiesByIds(ids), store.contributionsOf(ids)]);
    const stored = new Map(entities.map((entity) => [entity.id, { id: entity.id, entity, documents: contributions.get(entity.id) ?? {} }]));
    await this.apply(
      tenant,
      'entity',
      records.map(({ index, record }) => ({ index, record: withStoredContributions(record, stored.get(record.id)) })),
      stored,
      ({ entity, documents }) => entityLine(entity, documents),
      (store, written) =>
        store.write({
          upsertEntities: written.map(({ entity }) => entity),
          // The merged contributions replace the stored ones.
          clearContributions: written.map(({ id }) => id),
          addContributions: written.flatMap(({ id, documents }) =>
            Object.entries(documents).map(([memoryId, contribution]) => ({ entityId: id, memoryId, contribution })),
          ),
        }),
      options,
      tally,
    );
  }

  /** Entity ids of this tenant among `ids`. */
  private async entitiesPresent(tenant: string, ids: Iterable<string>): Promise<Set<string>> {
    const unique = [...new Set(ids)];
    return new Set((await this.deps.storage.knowledge(tenant).entitiesByIds(unique)).map((entity) => entity.id));
  }

  private async importFacts(tenant: string, items: readonly Item<FactInput>[], options: ImportOptions, tally: Tally): Promise<void> {
    if (items.length === 0) return;
    const records: { index: number; record: FactRecord }[] = [];
    const memories = options.dryRun ? null : await this.present(tenant, items.flatMap((item) => item.line.supports.map((support) => support.memoryId)));
    const entities = options.dryRun ? null : await this.entitiesPresent(tenant, items.flatMap((item) => [item.line.subjectId, ...(item.line.objectId ? [item.line.objectId] : [])]));
    for (const { index, line } of items) {
      const fact = toFact(line);
      const missing = entities ? [fact.subjectId, fact.objectId].find((id) => id !== null && !entities.has(id)) : undefined;
      if (missing) {
        tally.fail(index, 'fact', line.id, `its entity ${missing} is not in this account (import the entities first)`);
        continue;
      }
      const kept =
        memories && !fact.supports.every((support) => memories.has(support.memoryId))
          ? deriveFact({ ...fact, supports: fact.supports.filter((support) => memories.has(support.memoryId)) })
          : fact;
      if (!kept) tally.fail(index, 'fact', line.id, 'none of the memories stating it is in this account');
      else records.push({ index, record: kept });
    }
    const store = this.deps.storage.knowledge(tenant);
    // The stored facts of these subjects too: which fact supersedes which is decided among all of them.
    const [byId, ofSubjects] = await Promise.all([
      store.factsByIds(records.map(({ record }) => record.id)),
      store.factsOfSubjects([...new Set(records.map(({ record }) => record.subjectId))]),
    ]);
    const stored = new Map([...ofSubjects, ...byId].map((fact) => [fact.id, fact]));
    const merged = records.map(({ index, record }) => ({ index, record: withStoredSupports(record, stored.get(record.id), deriveFact) }));
    const { entries: valid, extra } = withValidity(merged, stored);
    await this.apply(tenant, 'fact', valid, stored, factLine, (store, upsertFacts) => store.write({ upsertFacts }), options, tally, extra);
  }

  private async importEdges(tenant: string, items: readonly Item<EdgeInput>[], options: ImportOptions, tally: Tally): Promise<void> {
    if (items.length === 0) return;
    const records: { index: number; record: EdgeRecord }[] = [];
    const memories = options.dryRun ? null : await this.present(tenant, items.flatMap((item) => item.line.supports.map((support) => support.memoryId)));
    const entities = options.dryRun ? null : await this.entitiesPresent(tenant, items.flatMap((item) => [item.line.sourceId, item.line.targetId]));
    for (const { index, line } of items) {
      const edge = toEdge(line);
      const missing = entities ? [edge.sourceId, edge.targetId].find((id) => !entities.has(id)) : undefined;
      if (missing) {
        tally.fail(index, 'edge', line.id, `its entity ${missing} is not in this account (import the entities first)`);
        continue;
      }
      const kept =
        memories && !edge.supports.every((support) => memories.has(support.memoryId))
          ? deriveEdge({ ...edge, supports: edge.supports.filter((support) => memories.has(support.memoryId)) })
          : edge;
      if (!kept) tally.fail(index, 'edge', line.id, 'none of the memories stating it is in this account');
      else records.push({ index, record: kept });
    }
    const stored = new Map((await this.deps.storage.knowledge(tenant).edgesByIds(records.map(({ record }) => record.id))).map((edge) => [edge.id, edge]));
    await this.apply(
      tenant,
      'edge',
      records.map(({ index, record }) => ({ index, record: withStoredSupports(record, stored.get(record.id), deriveEdge) })),
      stored,
      edgeLine,
      (store, upsertEdges) => store.write({ upsertEdges }),
      options,
      tally,
    );
  }

  // ---- watches --------------------------------------------------------------------------------------

  private async importWatches(tenant: string, items: readonly Item<WatchInput>[], options: ImportOptions, tally: Tally): Promise<void> {
    if (items.length === 0) return;
    if (!options.allowWatches) {
      for (const { index, line } of items) {
        tally.fail(index, 'watch', line.id, 'FORBIDDEN: only the owner account can import folder watches (the daemon reads their folders with its own permissions)');
      }
      return;
    }
    const watches = this.deps.storage.watches;
    const all = await watches.all();
    for (const { index, line } of items) {
      const record = toWatch(tenant, line);
      const owner = all.find((watch) => watch.id === record.id);
      if (owner && owner.accountId !== tenant) {
        tally.fail(index, 'watch', record.id, `${record.id} belongs to another account or sandbox of this daemon`);
        continue;
      }
      const samePath = all.find((watch) => watch.accountId === tenant && watch.path === record.path && watch.id !== record.id);
      if (samePath) {
        tally.fail(index, 'watch', record.id, `${record.path} is already watched (${samePath.id})`);
        continue;
      }
      if (owner && same(watchLine(owner), watchLine(record))) {
        tally.count('watch', 'unchanged');
        continue;
      }
      if (!options.dryRun) {
        try {
          await watches.put(record);
        } catch (error) {
          tally.fail(index, 'watch', record.id, message(error));
          continue;
        }
        // A folder that cannot be followed here is listed as failed (GET /v1/watches); the record stays.
        await this.deps.adoptWatch?.(record).catch((error: unknown) => this.deps.onError?.(error, { watchId: record.id, path: record.path }));
      }
      tally.count('watch', owner ? 'updated' : 'created');
    }
  }
}

/** The file's passages and vectors, when they are what this daemon would compute for the memory now. */
function fileChunks(line: MemoryInput, memory: MemoryRecord, dimension: number): ChunkInput[] | null {
  if (!line.vectors || line.vectors.length === 0) return null;
  const expected = memoryPassages(memory.content, memory.title, memory.context, memory.author);
  const given = [...line.vectors].sort((a, b) => a.seq - b.seq);
  if (given.length !== expected.length) return null;
  for (const [i, chunk] of given.entries()) {
    const wanted = expected[i];
    if (!wanted || chunk.seq !== wanted.seq || chunk.text !== wanted.text) return null;
    if (chunk.vector.length !== dimension || !chunk.vector.every(Number.isFinite)) return null;
  }
  return given.map((chunk) => ({ seq: chunk.seq, text: chunk.text, vector: Float32Array.from(chunk.vector) }));
}
