import { ulid } from '../ids.js';
import type {
  ContributionRecord,
  ContributionRef,
  EdgeRecord,
  EntityContribution,
  EntityContributions,
  EntityRecord,
  FactRecord,
  KnowledgeChanges,
  KnowledgeStore,
} from './types.js';

/** What applying one memory's extraction reads and writes (KnowledgeService.apply). */
export type KnowledgeApplyStore = Pick<
  KnowledgeStore,
  'entitiesByKeys' | 'entitiesOfMemory' | 'contributionsOf' | 'factsOfMemory' | 'edgesOfMemory' | 'factsOfSubjects' | 'edgesTouching' | 'write'
>;

const pairKey = (entityId: string, memoryId: string) => `${entityId}\u0000${memoryId}`;

/**
 * Changes of several memories' extractions, staged in memory over the account's store and committed
 * together: one commit per table for a whole batch of saves instead of one per save.
 *
 * Reads see the staged changes as the store would after committing them: a staged record replaces the
 * stored one with the same id (and is returned only when it matches the query), a staged deletion hides it.
 * So the memories of a batch are applied one after another exactly as they would be one commit at a time.
 *
 * The store underneath does not change while a batch is applied (the account's changes run one at a time),
 * so what prefetch() reads for the whole batch at once answers the memories' own reads, each of which was a
 * query of its own (three per memory kept the standard ingest at half the models' pace).
 */
export class StagedKnowledge implements KnowledgeApplyStore {
  private readonly entities = new Map<string, EntityRecord | null>();
  private readonly facts = new Map<string, FactRecord | null>();
  private readonly edges = new Map<string, EdgeRecord | null>();
  /** Ids of the entities this batch creates (createEntityId): the store underneath holds nothing of theirs. */
  private readonly created = new Set<string>();
  /** The prefetched reads: entities of these match keys, and the edges among and facts about these entity ids. */
  private readonly prefetchedKeys = new Set<string>();
  private prefetchedEntities: readonly EntityRecord[] = [];
  private readonly prefetchedIds = new Set<string>();
  private prefetchedEdges: readonly EdgeRecord[] = [];
  private prefetchedFacts: readonly FactRecord[] = [];
  /** Contributions staged per entity (null: removed), over those the store held when first asked for. */
  private readonly contributions = new Map<string, Map<string, EntityContribution | null>>();
  /** Entities whose stored contributions are all gone (deleted entities, cleared ones). */
  private readonly cleared = new Set<string>();
  /** Pairs that may be stored underneath and must go before the staged ones are added. */
  private readonly removed = new Map<string, ContributionRef>();
  private readonly storedContributions = new Map<string, EntityContributions>();

  constructor(private readonly base: KnowledgeApplyStore) {}

  /** An id for an entity the batch creates; reads of its facts and edges then skip the store underneath. */
  createEntityId(at: number): string {
    const id = `ent_${ulid(at)}`;
    this.created.add(id);
    return id;
  }

  /**
   * Reads at once what the batch's memories will look up one by one: the entities of all their match keys,
   * the edges among those entities and the facts about them (each memory's facts are matched against its
   * subjects' facts). Later reads that ask only for what this covers are answered here.
   */
  async prefetch(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const entities = await this.base.entitiesByKeys(keys);
    const ids = entities.map((entity) => entity.id);
    const [edges, facts] = ids.length > 0 ? await Promise.all([this.base.edgesTouching(ids, true), this.base.factsOfSubjects(ids)]) : [[], []];
    for (const key of keys) this.prefetchedKeys.add(key);
    this.prefetchedEntities = [...this.prefetchedEntities, ...entities];
    for (const id of ids) this.prefetchedIds.add(id);
    this.prefetchedEdges = [...this.prefetchedEdges, ...edges];
    this.prefetchedFacts = [...this.prefetchedFacts, ...facts];
  }

  async entitiesByKeys(keys: readonly string[]): Promise<EntityRecord[]> {
    const wanted = new Set(keys);
    const matches = (entity: EntityRecord) => entity.matchKeys.some((key) => wanted.has(key));
    const stored = keys.every((key) => this.prefetchedKeys.has(key))
      ? this.prefetchedEntities.filter(matches)
      : await this.base.entitiesByKeys(keys);
    return overlay(stored, this.entities, matches);
  }

  async entitiesOfMemory(memoryId: string): Promise<EntityRecord[]> {
    return overlay(await this.base.entitiesOfMemory(memoryId), this.entities, (entity) => entity.relatedDocuments.includes(memoryId));
  }

  /** The store's contributions (read once per entity: the store does not change during a batch) with the staged ones. */
  async contributionsOf(entityIds: readonly string[]): Promise<Map<string, EntityContributions>> {
    const unread = [...new Set(entityIds)].filter((id) => !this.created.has(id) && !this.cleared.has(id) && !this.storedContributions.has(id));
    if (unread.length > 0) {
      const read = await this.base.contributionsOf(unread);
      for (const id of unread) this.storedContributions.set(id, read.get(id) ?? {});
    }
    const result = new Map<string, EntityContributions>();
    for (const id of entityIds) {
      const documents: Record<string, EntityContribution> = this.created.has(id) || this.cleared.has(id) ? {} : { ...this.storedContributions.get(id) };
      for (const [memoryId, contribution] of this.contributions.get(id) ?? []) {
        if (contribution) documents[memoryId] = contribution;
        else delete documents[memoryId];
      }
      if (Object.keys(documents).length > 0) result.set(id, documents);
    }
    return result;
  }

  async factsOfMemory(memoryId: string): Promise<FactRecord[]> {
    return overlay(await this.base.factsOfMemory(memoryId), this.facts, (fact) => fact.supports.some((s) => s.memoryId === memoryId));
  }

  async edgesOfMemory(memoryId: string): Promise<EdgeRecord[]> {
    return overlay(await this.base.edgesOfMemory(memoryId), this.edges, (edge) => edge.supports.some((s) => s.memoryId === memoryId));
  }

  async factsOfSubjects(subjectIds: readonly string[]): Promise<FactRecord[]> {
    const wanted = new Set(subjectIds);
    const matches = (fact: FactRecord) => wanted.has(fact.subjectId);
    const stored = subjectIds.filter((id) => !this.created.has(id));
    const covered = stored.every((id) => this.prefetchedIds.has(id));
    const found = stored.length === 0 ? [] : covered ? this.prefetchedFacts.filter(matches) : await this.base.factsOfSubjects(stored);
    return overlay(found, this.facts, matches);
  }

  async edgesTouching(ids: readonly string[], within = false): Promise<EdgeRecord[]> {
    const wanted = new Set(ids);
    const matches = (edge: EdgeRecord) =>
      within ? wanted.has(edge.sourceId) && wanted.has(edge.targetId) : wanted.has(edge.sourceId) || wanted.has(edge.targetId);
    // Edges among created entities and those prefetched: the prefetched ones (no stored edge touches a
    // created entity).
    const stored = ids.filter((id) => !this.created.has(id));
    const covered = within && stored.every((id) => this.prefetchedIds.has(id));
    const found = stored.length === 0 ? [] : covered ? this.prefetchedEdges.filter(matches) : await this.base.edgesTouching(stored, within);
    return overlay(found, this.edges, matches);
  }

  /** Stages the changes (nothing is committed until commit()). */
  write(changes: KnowledgeChanges): Promise<void> {
    stage(this.entities, changes.upsertEntities, changes.deleteEntities);
    stage(this.facts, changes.upsertFacts, changes.deleteFacts);
    stage(this.edges, changes.upsertEdges, changes.deleteEdges);
    for (const id of [...(changes.deleteEntities ?? []), ...(changes.clearContributions ?? [])]) {
      this.cleared.add(id);
      this.contributions.delete(id);
    }
    for (const ref of changes.removeContributions ?? []) {
      this.removed.set(pairKey(ref.entityId, ref.memoryId), ref);
      this.staged(ref.entityId).set(ref.memoryId, null);
    }
    for (const { entityId, memoryId, contribution } of changes.addContributions ?? []) this.staged(entityId).set(memoryId, contribution);
    return Promise.resolve();
  }

  private staged(entityId: string): Map<string, EntityContribution | null> {
    let staged = this.contributions.get(entityId);
    if (!staged) {
      staged = new Map();
      this.contributions.set(entityId, staged);
    }
    return staged;
  }

  /** Everything staged, as one set of changes. */
  changes(): KnowledgeChanges {
    const split = <T>(staged: Map<string, T | null>) => {
      const upsert: T[] = [];
      const remove: string[] = [];
      for (const [id, value] of staged) {
        if (value) upsert.push(value);
        else remove.push(id);
      }
      return { upsert, remove };
    };
    const e = split(this.entities);
    const f = split(this.facts);
    const g = split(this.edges);
    const addContributions: ContributionRecord[] = [];
    for (const [entityId, staged] of this.contributions) {
      for (const [memoryId, contribution] of staged) if (contribution) addContributions.push({ entityId, memoryId, contribution });
    }
    const deleted = new Set(e.remove);
    return {
      upsertEntities: e.upsert,
      deleteEntities: e.remove,
      upsertFacts: f.upsert,
      deleteFacts: f.remove,
      upsertEdges: g.upsert,
      deleteEdges: g.remove,
      // Removed as pairs, all of an entity's when it is cleared or deleted; then the staged ones are added.
      removeContributions: [...this.removed.values()].filter((ref) => !this.cleared.has(ref.entityId)),
      clearContributions: [...this.cleared].filter((id) => !deleted.has(id)),
      addContributions,
    };
  }

  /** Commits everything staged to the store underneath: one commit per table that changes. */
  async commit(): Promise<void> {
    await this.base.write(this.changes());
  }
}

function overlay<T extends { readonly id: string }>(stored: readonly T[], staged: ReadonlyMap<string, T | null>, matches: (record: T) => boolean): T[] {
  const result = stored.filter((record) => !staged.has(record.id));
  for (const record of staged.values()) if (record && matches(record)) result.push(record);
  return result;
}

function stage<T extends { readonly id: string }>(staged: Map<string, T | null>, upsert: readonly T[] = [], remove: readonly string[] = []): void {
  for (const id of remove) staged.set(id, null);
  for (const record of upsert) staged.set(record.id, record);
}
