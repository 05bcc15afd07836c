import { MemError } from '../../errors.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import type { EntityType, Extraction, Extractor, FactCategory } from '../../providers/spec.js';
import { ulid } from '../ids.js';
import type { Storage } from '../ports.js';
import type { MemoryRecord } from '../types.js';
import {
  applySupersession,
  deriveEdge,
  deriveEntity,
  deriveFact,
  edgeWithoutDocument,
  factWithoutDocument,
  withoutDocument,
} from './derive.js';
import { buildGraph, type Graph, type GraphRequest } from './graph.js';
import { core, lookupKeys, nameMatch } from './names.js';
import type {
  EdgeRecord,
  EntityContribution,
  EntityRecord,
  EntitySort,
  ExtractionStatusRecord,
  FactRecord,
  KnowledgeStore,
} from './types.js';

export interface KnowledgeServiceDeps {
  readonly storage: Storage;
  readonly extractor: Extractor;
  /** Runs extractions that are not inline (Ollama). */
  readonly queue: JobQueue;
  readonly now?: () => number;
  /** Told about extraction failures (they are also recorded in the memory's extraction status). */
  readonly onError?: (error: unknown, context: { accountId: string; memoryId: string }) => void;
}

/** What the memory service tells the knowledge service (see MemoryService). */
export interface KnowledgeHooks {
  /** A standard save or a content change: extract (inline or queued). Never throws for extraction failures. */
  /** `fresh`: the memory was just created, so it contributed nothing yet (saves three reads). */
  memorySaved(accountId: string, memory: MemoryRecord, options?: { fresh?: boolean }): Promise<void>;
  /** Before memories are deleted: remove everything they contributed. */
  memoriesDeleted(accountId: string, memoryIds: readonly string[]): Promise<void>;
}

export interface EntityListInput {
  readonly type?: EntityType | undefined;
  readonly search?: string | undefined;
  readonly sortBy: EntitySort;
  readonly limit: number;
  readonly offset: number;
}

export interface FactListInput {
  /** Entity name, alias or id. */
  readonly entity?: string | undefined;
  readonly category?: FactCategory | undefined;
  readonly confidence?: number | undefined;
  readonly includeSuperseded: boolean;
  readonly limit: number;
  readonly offset: number;
}

const MAX_ERROR_LENGTH = 500;

/**
 * Entities, facts and the knowledge graph of each account. Extraction runs inside the save for inline
 * extractors (built-in) and in the background queue otherwise (Ollama), recording the memory's extraction
 * status either way. Changes of one account are applied one at a time (read, merge, write), so concurrent
 * saves never lose each other's contributions.
 */
export class KnowledgeService implements KnowledgeHooks {
  private readonly now: () => number;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: KnowledgeServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  get extractorModel(): string {
    return this.deps.extractor.modelId;
  }

  private store(accountId: string): KnowledgeStore {
    return this.deps.storage.knowledge(accountId);
  }

  /** One change at a time per account. */
  private exclusive<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(accountId) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    this.locks.set(accountId, tail);
    void tail.then(() => {
      if (this.locks.get(accountId) === tail) this.locks.delete(accountId);
    });
    return run;
  }

  async memorySaved(accountId: string, memory: MemoryRecord, options: { fresh?: boolean } = {}): Promise<void> {
    if (memory.turbo) return;
    if (this.deps.extractor.inline) {
      await this.runExtraction(accountId, memory.id, 1, undefined, memory, options.fresh);
      return;
    }
    await this.store(accountId).putStatus(this.status(memory.id, 'pending', null, 0));
    this.schedule(accountId, memory.id, 1);
  }

  async memoriesDeleted(accountId: string, memoryIds: readonly string[]): Promise<void> {
    if (memoryIds.length === 0) return;
    await this.exclusive(accountId, async () => {
      const store = this.store(accountId);
      for (const memoryId of memoryIds) await this.apply(store, memoryId, null);
      await store.deleteStatus(memoryIds);
    });
  }

  /**
   * Runs `work` between the account's knowledge changes (an import writes records directly): no extraction
   * of the account reads, merges and writes meanwhile. `work` must not call memorySaved/memoriesDeleted.
   */
  serialize<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    return this.exclusive(accountId, work);
  }

  /** The extraction status of a memory; NOT_FOUND for memories without one (turbo, unknown). */
  async extractionStatus(accountId: string, memoryId: string): Promise<ExtractionStatusRecord> {
    const status = await this.store(accountId).getStatus(memoryId);
    if (!status) {
      const memory = await this.deps.storage.memories(accountId).get(memoryId);
      if (!memory) throw new MemError('NOT_FOUND', 'Memory not found', { details: { id: memoryId } });
      throw new MemError('NOT_FOUND', 'This memory has no extraction (saved with turbo, which skips it).', {
        details: { id: memoryId },
        hint: 'Update its content to extract it.',
      });
    }
    return status;
  }

  /** Runs extraction again for every memory whose extraction failed. */
  async retryFailed(accountId: string): Promise<string[]> {
    const failed = await this.store(accountId).statusesIn(['failed']);
    const ids = failed.map((record) => record.memoryId).sort();
    for (const record of failed) {
      if (this.deps.extractor.inline) await this.runExtraction(accountId, record.memoryId, record.attempts + 1);
      else {
        await this.store(accountId).putStatus({ ...record, status: 'pending', updatedAt: this.now() });
        this.schedule(accountId, record.memoryId, record.attempts + 1);
      }
    }
    return ids;
  }

  /** Re-queues extractions a previous daemon accepted but did not finish. */
  async resume(accountIds: readonly string[]): Promise<number> {
    let resumed = 0;
    for (const accountId of accountIds) {
      for (const record of await this.store(accountId).statusesIn(['pending', 'processing'])) {
        this.schedule(accountId, record.memoryId, record.attempts + 1);
        resumed++;
      }
    }
    return resumed;
  }

  /** Resolves when no background extraction is queued or running (tests, shutdown). */
  idle(): Promise<void> {
    return this.deps.queue.onIdle();
  }

  private status(memoryId: string, status: ExtractionStatusRecord['status'], error: string | null, attempts: number, counts = { entities: 0, facts: 0 }): ExtractionStatusRecord {
    return { memoryId, status, error, model: this.deps.extractor.modelId, attempts, updatedAt: this.now(), ...counts };
  }

  private schedule(accountId: string, memoryId: string, attempts: number): void {
    this.deps.queue.add(async (signal) => {
      if (signal.aborted) return;
      await this.runExtraction(accountId, memoryId, attempts, signal);
    });
  }

  /** Extracts and applies; records completed or failed (with the reason). Never throws. */
  /** `known`: the record the caller just saved, so an inline extraction does not read it back first. */
  private async runExtraction(
    accountId: string,
    memoryId: string,
    attempts: number,
    signal?: AbortSignal,
    known?: MemoryRecord,
    fresh = false,
  ): Promise<void> {
    const store = this.store(accountId);
    try {
      const memory = known ?? (await this.deps.storage.memories(accountId).get(memoryId));
      if (!memory) {
        await store.deleteStatus([memoryId]);
        return;
      }
      if (!this.deps.extractor.inline) await store.putStatus(this.status(memoryId, 'processing', null, attempts));
      const extraction = await this.deps.extractor.extract({ text: memory.content, referenceTime: memory.createdAt, signal });
      const counts = await this.exclusive(accountId, async () => {
        // The memory may have been deleted or changed while the model was thinking.
        const current = await this.deps.storage.memories(accountId).get(memoryId);
        if (!current || current.contentHash !== memory.contentHash) return null;
        return this.apply(store, memoryId, { memory: current, extraction }, fresh);
      });
      if (counts) await store.putStatus(this.status(memoryId, 'completed', null, attempts, counts));
    } catch (error) {
      // Shutting down: leave the status as it is, so the next start resumes it.
      if (signal?.aborted) return;
      this.deps.onError?.(error, { accountId, memoryId });
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);
      await store.putStatus(this.status(memoryId, 'failed', reason, attempts)).catch(() => undefined);
    }
  }

  /**
   * Replaces what `memoryId` contributed with what `next` extracts from it (null: forget the memory).
   * Must run inside exclusive().
   */
  private async apply(
    store: KnowledgeStore,
    memoryId: string,
    next: { memory: MemoryRecord; extraction: Extraction } | null,
    fresh = false,
  ): Promise<{ entities: number; facts: number }> {
    const entities = new Map<string, EntityRecord | null>();
    const facts = new Map<string, FactRecord | null>();
    const edges = new Map<string, EdgeRecord | null>();
    const changedEntities = new Set<string>();
    const changedFacts = new Set<string>();
    const changedEdges = new Set<string>();
    const touchedSubjects = new Set<string>();

    // 1. Forget what the memory said before (a memory created just now said nothing yet).
    const [oldEntities, oldFacts, oldEdges] = fresh
      ? [[], [], []]
      : await Promise.all([store.entitiesOfMemory(memoryId), store.factsOfMemory(memoryId), store.edgesOfMemory(memoryId)]);
    for (const entity of oldEntities) {
      entities.set(entity.id, withoutDocument(entity, memoryId));
      changedEntities.add(entity.id);
    }
    for (const fact of oldFacts) {
      facts.set(fact.id, factWithoutDocument(fact, memoryId));
      changedFacts.add(fact.id);
      touchedSubjects.add(fact.subjectId);
    }
    for (const edge of oldEdges) {
      edges.set(edge.id, edgeWithoutDocument(edge, memoryId));
      changedEdges.add(edge.id);
    }

    let counts = { entities: 0, facts: 0 };
    if (next) {
      const { memory, extraction } = next;
      // 2. Resolve each extracted entity to a stored one, or a new one.
      const extracted = extraction.entities.map((entity) => ({
        entity,
        names: [...new Set([entity.name, ...entity.aliases].map((name) => name.trim()).filter(Boolean))],
      }));
      const keys = [...new Set(extracted.flatMap(({ entity, names }) => lookupKeys(names, entity.type)))];
      const candidates = new Map<string, EntityRecord>();
      for (const candidate of keys.length > 0 ? await store.entitiesByKeys(keys) : []) candidates.set(candidate.id, candidate);
      for (const [id, entity] of entities) {
        if (entity) candidates.set(id, entity);
        else candidates.delete(id);
      }
      const current = (id: string) => (entities.has(id) ? entities.get(id) : candidates.get(id)) ?? null;

      const assigned = new Map<number, string>();
      const level = (names: readonly string[], type: EntityType, candidate: EntityRecord): 0 | 1 | 2 => {
        if (candidate.type !== type) return 0;
        let best: 0 | 1 | 2 = 0;
        for (const name of names) {
          for (const other of [candidate.name, ...candidate.aliases]) {
            const match = nameMatch(name, other, type);
            if (match > best) best = match;
          }
        }
        return best;
      };
      const pool = [...candidates.values()].sort((a, b) => b.mentions - a.mentions || (a.id < b.id ? -1 : 1));
      // Pass 1: names that identify an entity on their own (full names, company names, acronyms).
      extracted.forEach(({ entity, names }, index) => {
        const strong = pool.filter((candidate) => level(names, entity.type, candidate) === 2);
        if (strong.length === 0) return;
        const exact = strong.filter((candidate) =>
          names.some((name) => [candidate.name, ...candidate.aliases].some((other) => core(other, entity.type) === core(name, entity.type))),
        );
        // "S. Chen" when both Sarah Chen and Simon Chen are known: ambiguous, so no merge.
        const choice = exact.length > 0 ? exact : strong;
        if (entity.type === 'person' && exact.length === 0 && choice.length > 1) return;
        assigned.set(index, (choice[0] as EntityRecord).id);
      });
      // Pass 2: a bare given or family name joins a known person only with evidence: exactly one such person
      // shares a memory with an entity this memory also names.
      const evidence = new Set<string>();
      for (const id of assigned.values()) for (const document of current(id)?.relatedDocuments ?? []) if (document !== memoryId) evidence.add(document);
      extracted.forEach(({ entity, names }, index) => {
        if (assigned.has(index)) return;
        const weak = pool.filter(
          (candidate) => level(names, entity.type, candidate) >= 1 && candidate.relatedDocuments.some((document) => evidence.has(document)),
        );
        if (weak.length === 1) assigned.set(index, (weak[0] as EntityRecord).id);
      });

      // 3. Record this memory's contribution to each entity.
      const contributions = new Map<string, { type: EntityType; contribution: EntityContribution }>();
      const idOfName = new Map<string, string>();
      extracted.forEach(({ entity, names }, index) => {
        const id = assigned.get(index) ?? `ent_${ulid(memory.createdAt)}`;
        const previous = contributions.get(id)?.contribution;
        contributions.set(id, {
          type: current(id)?.type ?? entity.type,
          contribution: {
            mentions: (previous?.mentions ?? 0) + Math.max(1, entity.mentions),
            seenAt: memory.createdAt,
            names: [...new Set([...(previous?.names ?? []), ...names])],
            properties: { ...previous?.properties, ...entity.properties },
          },
        });
        for (const name of names) if (!idOfName.has(name.toLowerCase())) idOfName.set(name.toLowerCase(), id);
      });
      const entityNames = new Map<string, string>();
      for (const [id, { type, contribution }] of contributions) {
        const base = current(id);
        const derived = deriveEntity({ id, type }, { ...(base?.documents ?? {}), [memoryId]: contribution });
        entities.set(id, derived);
        changedEntities.add(id);
        if (derived) entityNames.set(id, derived.name);
      }
      const resolveName = (name: string): string | undefined => {
        const direct = idOfName.get(name.trim().toLowerCase());
        if (direct) return direct;
        const wanted = core(name);
        for (const [known, id] of idOfName) if (core(known) === wanted && wanted) return id;
        return undefined;
      };

      // 4. Facts: one record per (subject, predicate, object), supported by the memories that state it.
      const newFacts = extraction.facts
        .map((fact) => ({ fact, subjectId: resolveName(fact.subject), objectId: resolveName(fact.object) ?? null }))
        .filter((entry): entry is typeof entry & { subjectId: string } => entry.subjectId !== undefined);
      for (const entry of newFacts) touchedSubjects.add(entry.subjectId);
      if (touchedSubjects.size > 0) {
        for (const fact of await store.factsOfSubjects([...touchedSubjects])) if (!facts.has(fact.id)) facts.set(fact.id, fact);
      }
      const factKey = (subjectId: string, predicate: string, objectId: string | null, object: string) =>
        `${subjectId}|${predicate}|${objectId ?? core(object)}`;
      const byKey = new Map<string, string>();
      for (const [id, fact] of facts) if (fact) byKey.set(factKey(fact.subjectId, fact.predicate, fact.objectId, fact.object), id);
      const extractedAt = this.now();
      for (const { fact, subjectId, objectId } of newFacts) {
        const object = objectId ? (entityNames.get(objectId) ?? fact.object) : fact.object;
        const key = factKey(subjectId, fact.predicate, objectId, object);
        const id = byKey.get(key) ?? `fact_${ulid(memory.createdAt)}`;
        byKey.set(key, id);
        const existing = facts.get(id) ?? null;
        const validFrom = fact.validFrom ? Date.parse(fact.validFrom) : Number.NaN;
        const support = {
          memoryId,
          statement: fact.statement,
          excerpt: fact.excerpt,
          confidence: fact.confidence,
          extractedAt,
          validFrom: Number.isFinite(validFrom) ? validFrom : null,
          statedAt: memory.createdAt,
        };
        const others = (existing?.supports ?? []).filter((s) => s.memoryId !== memoryId);
        const mine = existing?.supports.find((s) => s.memoryId === memoryId);
        const derived = deriveFact({
          id,
          subjectId,
          subject: entityNames.get(subjectId) ?? fact.subject,
          predicate: fact.predicate,
          object,
          objectId,
          category: fact.category,
          validTo: existing?.validTo ?? null,
          supersededBy: existing?.supersededBy ?? null,
          supports: [...others, mine && mine.confidence > support.confidence ? mine : support],
        });
        facts.set(id, derived);
        changedFacts.add(id);
      }
      counts = { entities: contributions.size, facts: new Set(newFacts.map(({ fact, subjectId, objectId }) => factKey(subjectId, fact.predicate, objectId, fact.object))).size };

      // 5. Edges between this memory's entities.
      const mine = [...contributions.keys()];
      if (mine.length > 1) for (const edge of await store.edgesTouching(mine, true)) if (!edges.has(edge.id)) edges.set(edge.id, edge);
      const edgeKey = (sourceId: string, targetId: string, relationship: string) => `${sourceId}|${targetId}|${relationship}`;
      const edgeByKey = new Map<string, string>();
      for (const [id, edge] of edges) if (edge) edgeByKey.set(edgeKey(edge.sourceId, edge.targetId, edge.relationship), id);
      const strongest = new Map<string, { sourceId: string; targetId: string; relationship: string; confidence: number }>();
      for (const relationship of extraction.relationships) {
        const sourceId = resolveName(relationship.source);
        const targetId = resolveName(relationship.target);
        if (!sourceId || !targetId || sourceId === targetId) continue;
        const key = edgeKey(sourceId, targetId, relationship.relationship);
        const previous = strongest.get(key);
        if (!previous || previous.confidence < relationship.confidence) {
          strongest.set(key, { sourceId, targetId, relationship: relationship.relationship, confidence: relationship.confidence });
        }
      }
      for (const [key, relation] of strongest) {
        const id = edgeByKey.get(key) ?? `edge_${ulid(memory.createdAt)}`;
        const existing = edges.get(id) ?? null;
        edges.set(
          id,
          deriveEdge({
            id,
            sourceId: relation.sourceId,
            targetId: relation.targetId,
            relationship: relation.relationship,
            supports: [...(existing?.supports ?? []).filter((s) => s.memoryId !== memoryId), { memoryId, confidence: relation.confidence }],
          }),
        );
        changedEdges.add(id);
      }
    }

    // 6. Facts and edges never outlive their entities.
    for (const [id, fact] of facts) {
      if (!fact) continue;
      const gone = (entityId: string | null) => entityId !== null && entities.has(entityId) && entities.get(entityId) === null;
      if (gone(fact.subjectId) || gone(fact.objectId)) {
        facts.set(id, null);
        changedFacts.add(id);
      }
    }
    for (const [id, edge] of edges) {
      if (edge && (entities.get(edge.sourceId) === null || entities.get(edge.targetId) === null)) {
        edges.set(id, null);
        changedEdges.add(id);
      }
    }

    // 7. Validity: within each touched subject, a later contradicting fact supersedes an earlier one.
    const bySubject = new Map<string, FactRecord[]>();
    for (const fact of facts.values()) {
      if (fact && touchedSubjects.has(fact.subjectId)) bySubject.set(fact.subjectId, [...(bySubject.get(fact.subjectId) ?? []), fact]);
    }
    for (const group of bySubject.values()) {
      for (const fact of applySupersession(group)) {
        facts.set(fact.id, fact);
        changedFacts.add(fact.id);
      }
    }

    const pick = <T>(map: Map<string, T | null>, changed: Set<string>) => {
      const upsert: T[] = [];
      const remove: string[] = [];
      for (const id of changed) {
        const value = map.get(id);
        if (value) upsert.push(value);
        else remove.push(id);
      }
      return { upsert, remove };
    };
    const e = pick(entities, changedEntities);
    const f = pick(facts, changedFacts);
    const g = pick(edges, changedEdges);
    await store.write({
      upsertEntities: e.upsert,
      deleteEntities: e.remove,
      upsertFacts: f.upsert,
      deleteFacts: f.remove,
      upsertEdges: g.upsert,
      deleteEdges: g.remove,
    });
    return counts;
  }

  // ---- reads ------------------------------------------------------------------------------------------

  async listEntities(accountId: string, input: EntityListInput) {
    const store = this.store(accountId);
    const search = input.search?.trim() ? input.search.trim() : undefined;
    const [{ items, total }, stats] = await Promise.all([
      store.listEntities({ type: input.type, search, sortBy: input.sortBy, limit: input.limit, offset: input.offset }),
      store.entityTypeCounts(),
    ]);
    return { items, total, stats };
  }

  /** Entities a name, alias or id denotes (several when a bare name is shared). */
  async findEntities(accountId: string, reference: string): Promise<EntityRecord[]> {
    const store = this.store(accountId);
    const text = reference.trim();
    if (!text) return [];
    if (/^ent_[0-9A-HJKMNP-TV-Z]{26}$/.test(text)) return store.entitiesByIds([text]);
    const wanted = core(text);
    if (!wanted) return [];
    const found = await store.entitiesByKeys([`n:${wanted}`, `n:${wanted.replace(/ /g, '')}`]);
    // Exact (normalised) names and aliases first; acronym keys may also have matched.
    const exact = found.filter((entity) => [entity.name, ...entity.aliases].some((name) => core(name) === wanted || core(name, entity.type) === wanted));
    return (exact.length > 0 ? exact : found).sort((a, b) => b.mentions - a.mentions || (a.id < b.id ? -1 : 1));
  }

  async listFacts(accountId: string, input: FactListInput) {
    let entityIds: string[] | undefined;
    if (input.entity !== undefined) {
      entityIds = (await this.findEntities(accountId, input.entity)).map((entity) => entity.id);
      if (entityIds.length === 0) return { items: [] as FactRecord[], total: 0 };
    }
    return this.store(accountId).listFacts({
      entityIds,
      category: input.category,
      minConfidence: input.confidence,
      includeSuperseded: input.includeSuperseded,
      limit: input.limit,
      offset: input.offset,
    });
  }

  async graph(accountId: string, request: GraphRequest): Promise<Graph> {
    const store = this.store(accountId);
    const seeds = request.entity !== undefined ? await this.findEntities(accountId, request.entity) : null;
    return buildGraph(store, request, seeds);
  }

  /** Row counts of the account's knowledge tables (tests prove nothing is orphaned). */
  counts(accountId: string) {
    return this.store(accountId).counts();
  }
}
