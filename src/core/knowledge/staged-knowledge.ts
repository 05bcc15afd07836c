import type { EdgeRecord, EntityRecord, FactRecord, KnowledgeChanges, KnowledgeStore } from './types.js';

/** What applying one memory's extraction reads and writes (KnowledgeService.apply). */
export type KnowledgeApplyStore = Pick<
  KnowledgeStore,
  'entitiesByKeys' | 'entitiesOfMemory' | 'factsOfMemory' | 'edgesOfMemory' | 'factsOfSubjects' | 'edgesTouching' | 'write'
>;

/**
 * Changes of several memories' extractions, staged in memory over the account's store and committed
 * together: one commit per table for a whole batch of saves instead of one per save.
 *
 * Reads see the staged changes as the store would after committing them: a staged record replaces the
 * stored one with the same id (and is returned only when it matches the query), a staged deletion hides it.
 * So the memories of a batch are applied one after another exactly as they would be one commit at a time.
 */
export class StagedKnowledge implements KnowledgeApplyStore {
  private readonly entities = new Map<string, EntityRecord | null>();
  private readonly facts = new Map<string, FactRecord | null>();
  private readonly edges = new Map<string, EdgeRecord | null>();

  constructor(private readonly base: KnowledgeApplyStore) {}

  async entitiesByKeys(keys: readonly string[]): Promise<EntityRecord[]> {
    const wanted = new Set(keys);
    return overlay(await this.base.entitiesByKeys(keys), this.entities, (entity) => entity.matchKeys.some((key) => wanted.has(key)));
  }

  async entitiesOfMemory(memoryId: string): Promise<EntityRecord[]> {
    return overlay(await this.base.entitiesOfMemory(memoryId), this.entities, (entity) => entity.relatedDocuments.includes(memoryId));
  }

  async factsOfMemory(memoryId: string): Promise<FactRecord[]> {
    return overlay(await this.base.factsOfMemory(memoryId), this.facts, (fact) => fact.supports.some((s) => s.memoryId === memoryId));
  }

  async edgesOfMemory(memoryId: string): Promise<EdgeRecord[]> {
    return overlay(await this.base.edgesOfMemory(memoryId), this.edges, (edge) => edge.supports.some((s) => s.memoryId === memoryId));
  }

  async factsOfSubjects(subjectIds: readonly string[]): Promise<FactRecord[]> {
    const wanted = new Set(subjectIds);
    return overlay(await this.base.factsOfSubjects(subjectIds), this.facts, (fact) => wanted.has(fact.subjectId));
  }

  async edgesTouching(ids: readonly string[], within = false): Promise<EdgeRecord[]> {
    const wanted = new Set(ids);
    return overlay(await this.base.edgesTouching(ids, within), this.edges, (edge) =>
      within ? wanted.has(edge.sourceId) && wanted.has(edge.targetId) : wanted.has(edge.sourceId) || wanted.has(edge.targetId),
    );
  }

  /** Stages the changes (nothing is committed until commit()). */
  write(changes: KnowledgeChanges): Promise<void> {
    stage(this.entities, changes.upsertEntities, changes.deleteEntities);
    stage(this.facts, changes.upsertFacts, changes.deleteFacts);
    stage(this.edges, changes.upsertEdges, changes.deleteEdges);
    return Promise.resolve();
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
    return { upsertEntities: e.upsert, deleteEntities: e.remove, upsertFacts: f.upsert, deleteFacts: f.remove, upsertEdges: g.upsert, deleteEdges: g.remove };
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
