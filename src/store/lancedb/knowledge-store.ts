import { z } from 'zod';
import type {
  ContributionRecord,
  EdgeRecord,
  EntityContribution,
  EntityContributions,
  EntityListRequest,
  EntityRecord,
  EntityTally,
  ExtractionState,
  ExtractionStatusRecord,
  FactListRequest,
  FactRecord,
  FactSupport,
  KnowledgeChanges,
  KnowledgeStore,
  KnowledgeTable,
} from '../../core/knowledge/types.js';
import { UNKNOWN_TALLY } from '../../core/knowledge/entity-tally.js';
import { ENTITY_TYPES, FACT_CATEGORIES, type EntityType, type FactCategory } from '../../providers/spec.js';
import { and, arrayHasAny, contains, eq, gt, gte, inList, isNull, ne, or, type Predicate } from './predicate.js';
import { json, num, optNum, optStr, str, strings } from './rows.js';
import type { TableWriter } from './table-writer.js';

type Row = Record<string, unknown>;

export interface KnowledgeTables {
  readonly entities: TableWriter;
  /** One row per entity and memory naming it: what that memory contributed. */
  readonly entityContributions: TableWriter;
  readonly facts: TableWriter;
  readonly edges: TableWriter;
  readonly extractionStatus: TableWriter;
}

// JSON columns are read back through zod: a damaged value degrades to "no contribution", never a crash.
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const contributionSchema = z.object({
  mentions: z.number(),
  seenAt: z.number(),
  names: z.array(z.string()),
  properties: z.record(z.string(), scalar).catch({}),
});
/** Schema 3's `documents` column: memory id -> contribution (read once, by the migration to schema 4). */
export function legacyDocuments(text: string): EntityContributions {
  return parsed(z.record(z.string(), contributionSchema), text, {}) as EntityContributions;
}

const place = z.tuple([z.number(), z.string(), z.number()]);
const tallySchema = z.object({
  names: z.array(z.tuple([z.string(), z.object({ display: z.string(), documents: z.number(), first: place })])),
  properties: z.array(z.tuple([z.string(), z.object({ value: scalar, latest: place, first: place })])),
  mentions: z.number(),
  firstSeen: z.number(),
  lastSeen: z.number(),
});
const factSupportsSchema = z.array(
  z.object({
    memoryId: z.string(),
    statement: z.string(),
    excerpt: z.string(),
    confidence: z.number(),
    extractedAt: z.number(),
    validFrom: z.number().nullable(),
    statedAt: z.number(),
  }),
);
const edgeSupportsSchema = z.array(z.object({ memoryId: z.string(), confidence: z.number() }));
const propertiesSchema = z.record(z.string(), scalar);

function parsed<T>(schema: z.ZodType<T>, text: string, fallback: T): T {
  const result = schema.safeParse(json<unknown>(text, fallback));
  return result.success ? result.data : fallback;
}

const entityType = (value: string): EntityType => ((ENTITY_TYPES as readonly string[]).includes(value) ? (value as EntityType) : 'concept');
const factCategory = (value: string): FactCategory =>
  (FACT_CATEGORIES as readonly string[]).includes(value) ? (value as FactCategory) : 'attribute';

/** The tally as JSON: its maps as lists of entries. */
export function tallyToJson(tally: EntityTally): string {
  return JSON.stringify({ ...tally, names: [...tally.names], properties: [...tally.properties] });
}

export function tallyFromJson(text: string): EntityTally {
  const result = tallySchema.safeParse(json<unknown>(text, null));
  if (!result.success) return UNKNOWN_TALLY;
  const { names, properties, mentions, firstSeen, lastSeen } = result.data;
  return { names: new Map(names), properties: new Map(properties), mentions, firstSeen, lastSeen };
}

function entityToRow(accountId: string, entity: EntityRecord): Row {
  return {
    id: entity.id,
    account_id: accountId,
    name: entity.name,
    sort_name: entity.name.toLowerCase(),
    type: entity.type,
    aliases: [...entity.aliases],
    properties: JSON.stringify(entity.properties),
    mentions: entity.mentions,
    first_seen: entity.firstSeen,
    last_seen: entity.lastSeen,
    memory_ids: [...entity.relatedDocuments],
    match_keys: [...entity.matchKeys],
    search_text: [entity.name, ...entity.aliases].map((name) => name.toLowerCase()).join('\n'),
    tally: tallyToJson(entity.tally),
  };
}

function rowToEntity(row: Row): EntityRecord {
  // Parsed when first read: only the knowledge service's changes read it.
  const tallyText = str(row, 'tally');
  let tally: EntityTally | undefined;
  return {
    id: str(row, 'id'),
    name: str(row, 'name'),
    type: entityType(str(row, 'type')),
    aliases: strings(row, 'aliases'),
    properties: parsed(propertiesSchema, str(row, 'properties'), {}),
    mentions: num(row, 'mentions'),
    firstSeen: num(row, 'first_seen'),
    lastSeen: num(row, 'last_seen'),
    relatedDocuments: strings(row, 'memory_ids'),
    matchKeys: strings(row, 'match_keys'),
    get tally() {
      tally ??= tallyFromJson(tallyText);
      return tally;
    },
  };
}

/** A contribution row's id: one row per entity and memory. */
export const contributionId = (entityId: string, memoryId: string) => `${entityId}:${memoryId}`;

export function contributionToRow(accountId: string, record: ContributionRecord): Row {
  return {
    id: contributionId(record.entityId, record.memoryId),
    account_id: accountId,
    entity_id: record.entityId,
    memory_id: record.memoryId,
    mentions: record.contribution.mentions,
    seen_at: record.contribution.seenAt,
    names: [...record.contribution.names],
    properties: JSON.stringify(record.contribution.properties),
  };
}

function rowToContribution(row: Row): EntityContribution {
  return {
    mentions: num(row, 'mentions'),
    seenAt: num(row, 'seen_at'),
    names: strings(row, 'names'),
    properties: parsed(propertiesSchema, str(row, 'properties'), {}),
  };
}

function factToRow(accountId: string, fact: FactRecord): Row {
  return {
    id: fact.id,
    account_id: accountId,
    subject_id: fact.subjectId,
    subject: fact.subject,
    predicate: fact.predicate,
    object: fact.object,
    object_id: fact.objectId,
    category: fact.category,
    statement: fact.statement,
    confidence: fact.confidence,
    source_document: fact.source.documentId,
    source_excerpt: fact.source.excerpt,
    extracted_at: fact.extractedAt,
    valid_from: fact.validFrom,
    valid_to: fact.validTo,
    superseded_by: fact.supersededBy,
    memory_ids: [...new Set(fact.supports.map((support) => support.memoryId))],
    entity_ids: fact.objectId ? [fact.subjectId, fact.objectId] : [fact.subjectId],
    supports: JSON.stringify(fact.supports),
  };
}

function rowToFact(row: Row): FactRecord {
  return {
    id: str(row, 'id'),
    subjectId: str(row, 'subject_id'),
    subject: str(row, 'subject'),
    predicate: str(row, 'predicate'),
    object: str(row, 'object'),
    objectId: optStr(row, 'object_id'),
    category: factCategory(str(row, 'category')),
    statement: str(row, 'statement'),
    confidence: num(row, 'confidence'),
    source: { documentId: str(row, 'source_document'), excerpt: str(row, 'source_excerpt') },
    extractedAt: num(row, 'extracted_at'),
    validFrom: optNum(row, 'valid_from'),
    validTo: optNum(row, 'valid_to'),
    supersededBy: optStr(row, 'superseded_by'),
    supports: parsed(factSupportsSchema, str(row, 'supports'), []) as FactSupport[],
  };
}

function edgeToRow(accountId: string, edge: EdgeRecord): Row {
  return {
    id: edge.id,
    account_id: accountId,
    source_id: edge.sourceId,
    target_id: edge.targetId,
    relationship: edge.relationship,
    strength: edge.strength,
    memory_ids: edge.supports.map((support) => support.memoryId),
    supports: JSON.stringify(edge.supports),
  };
}

function rowToEdge(row: Row): EdgeRecord {
  return {
    id: str(row, 'id'),
    sourceId: str(row, 'source_id'),
    targetId: str(row, 'target_id'),
    relationship: str(row, 'relationship'),
    strength: num(row, 'strength'),
    supports: parsed(edgeSupportsSchema, str(row, 'supports'), []),
  };
}

const STATES = new Set<string>(['pending', 'processing', 'completed', 'failed']);

function statusToRow(accountId: string, record: ExtractionStatusRecord): Row {
  return {
    id: record.memoryId,
    account_id: accountId,
    status: record.status,
    error: record.error,
    model: record.model,
    attempts: record.attempts,
    updated_at: record.updatedAt,
    entities: record.entities,
    facts: record.facts,
  };
}

function rowToStatus(row: Row): ExtractionStatusRecord {
  const status = str(row, 'status');
  return {
    memoryId: str(row, 'id'),
    status: STATES.has(status) ? (status as ExtractionState) : 'failed',
    error: optStr(row, 'error'),
    model: str(row, 'model'),
    attempts: num(row, 'attempts'),
    updatedAt: num(row, 'updated_at'),
    entities: num(row, 'entities'),
    facts: num(row, 'facts'),
  };
}

/** Upserts by id, then deletes; one commit per table that changes. */
async function applyTo(writer: TableWriter, accountId: string, upsert: readonly Row[], remove: readonly string[]): Promise<void> {
  if (upsert.length === 0 && remove.length === 0) return;
  await writer.exclusive(async (table) => {
    if (remove.length > 0) await table.delete(and(eq('account_id', accountId), inList('id', remove)));
    if (upsert.length > 0) await table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute([...upsert]);
  });
}

/** Entities, facts, edges and extraction status of one account; every query carries the account predicate. */
export class LanceKnowledgeStore implements KnowledgeStore {
  constructor(
    readonly accountId: string,
    private readonly tables: KnowledgeTables,
  ) {}

  private scope(...parts: (Predicate | undefined)[]): Predicate {
    return and(eq('account_id', this.accountId), ...parts);
  }

  private async entities(where: Predicate, limit?: number): Promise<EntityRecord[]> {
    let query = this.tables.entities.table.query().where(where);
    if (limit !== undefined) query = query.limit(limit);
    return (await query.toArray()).map((row) => rowToEntity(row as Row));
  }

  private async facts(where: Predicate): Promise<FactRecord[]> {
    return (await this.tables.facts.table.query().where(where).toArray()).map((row) => rowToFact(row as Row));
  }

  private async edges(where: Predicate): Promise<EdgeRecord[]> {
    return (await this.tables.edges.table.query().where(where).toArray()).map((row) => rowToEdge(row as Row));
  }

  entitiesByKeys(keys: readonly string[]): Promise<EntityRecord[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.entities(this.scope(arrayHasAny('match_keys', keys)));
  }

  entitiesByIds(ids: readonly string[]): Promise<EntityRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.entities(this.scope(inList('id', ids)));
  }

  entitiesOfMemory(memoryId: string): Promise<EntityRecord[]> {
    return this.entities(this.scope(arrayHasAny('memory_ids', [memoryId])));
  }

  async contributionsOf(entityIds: readonly string[]): Promise<Map<string, EntityContributions>> {
    const result = new Map<string, Record<string, EntityContribution>>();
    if (entityIds.length === 0) return result;
    const rows = await this.tables.entityContributions.table.query().where(this.scope(inList('entity_id', [...new Set(entityIds)]))).toArray();
    for (const row of rows as Row[]) {
      const entityId = str(row, 'entity_id');
      let documents = result.get(entityId);
      if (!documents) {
        documents = {};
        result.set(entityId, documents);
      }
      documents[str(row, 'memory_id')] = rowToContribution(row);
    }
    return result;
  }

  async listEntities(request: EntityListRequest): Promise<{ items: EntityRecord[]; total: number }> {
    const where = this.scope(
      request.type !== undefined ? eq('type', request.type) : undefined,
      request.search !== undefined ? contains('search_text', request.search.toLowerCase()) : undefined,
    );
    const order =
      request.sortBy === 'name'
        ? [{ columnName: 'sort_name', ascending: true }]
        : request.sortBy === 'recent'
          ? [{ columnName: 'last_seen', ascending: false }]
          : [{ columnName: 'mentions', ascending: false }];
    const table = this.tables.entities.table;
    const [total, rows] = await Promise.all([
      table.countRows(where),
      table
        .query()
        .where(where)
        .orderBy([...order, { columnName: 'id', ascending: true }])
        .offset(request.offset)
        .limit(request.limit)
        .toArray(),
    ]);
    return { items: rows.map((row) => rowToEntity(row as Row)), total };
  }

  async entityTypeCounts(): Promise<Record<string, number>> {
    const rows = await this.tables.entities.table.query().where(this.scope()).select(['type']).toArray();
    const counts: Record<string, number> = {};
    for (const row of rows) {
      const type = str(row as Row, 'type');
      counts[type] = (counts[type] ?? 0) + 1;
    }
    return counts;
  }

  async topEntities(limit: number, type?: EntityType): Promise<EntityRecord[]> {
    const rows = await this.tables.entities.table
      .query()
      .where(this.scope(type !== undefined ? eq('type', type) : undefined))
      .orderBy([
        { columnName: 'mentions', ascending: false },
        { columnName: 'id', ascending: true },
      ])
      .limit(limit)
      .toArray();
    return rows.map((row) => rowToEntity(row as Row));
  }

  factsOfMemory(memoryId: string): Promise<FactRecord[]> {
    return this.facts(this.scope(arrayHasAny('memory_ids', [memoryId])));
  }

  factsOfSubjects(subjectIds: readonly string[]): Promise<FactRecord[]> {
    if (subjectIds.length === 0) return Promise.resolve([]);
    return this.facts(this.scope(inList('subject_id', subjectIds)));
  }

  async listFacts(request: FactListRequest): Promise<{ items: FactRecord[]; total: number }> {
    const where = this.scope(
      request.entityIds !== undefined ? arrayHasAny('entity_ids', request.entityIds) : undefined,
      request.category !== undefined ? eq('category', request.category) : undefined,
      request.minConfidence !== undefined ? gte('confidence', request.minConfidence) : undefined,
      request.includeSuperseded ? undefined : request.asOf !== undefined ? or(isNull('valid_to'), gt('valid_to', request.asOf)) : isNull('valid_to'),
    );
    const table = this.tables.facts.table;
    const [total, rows] = await Promise.all([
      table.countRows(where),
      table
        .query()
        .where(where)
        .orderBy([
          { columnName: 'confidence', ascending: false },
          { columnName: 'extracted_at', ascending: false },
          { columnName: 'id', ascending: true },
        ])
        .offset(request.offset)
        .limit(request.limit)
        .toArray(),
    ]);
    return { items: rows.map((row) => rowToFact(row as Row)), total };
  }

  edgesOfMemory(memoryId: string): Promise<EdgeRecord[]> {
    return this.edges(this.scope(arrayHasAny('memory_ids', [memoryId])));
  }

  edgesTouching(ids: readonly string[], within = false): Promise<EdgeRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    const source = inList('source_id', ids);
    const target = inList('target_id', ids);
    return this.edges(this.scope(within ? and(source, target) : or(source, target)));
  }

  async write(changes: KnowledgeChanges): Promise<void> {
    const id = this.accountId;
    // One commit per table that changes, the four tables at once. A crash in between leaves records that
    // the next save or delete of the same memory re-derives (every record is a function of its per-memory
    // contributions).
    const results = await Promise.allSettled([
      this.writeContributions(changes),
      applyTo(this.tables.facts, id, (changes.upsertFacts ?? []).map((fact) => factToRow(id, fact)), changes.deleteFacts ?? []),
      applyTo(this.tables.edges, id, (changes.upsertEdges ?? []).map((edge) => edgeToRow(id, edge)), changes.deleteEdges ?? []),
      applyTo(
        this.tables.entities,
        id,
        (changes.upsertEntities ?? []).map((entity) => entityToRow(id, entity)),
        changes.deleteEntities ?? [],
      ),
    ]);
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Removes, then appends: a fresh memory's contributions are only appended, which costs no scan of the
   * table (a merge by id would join the rows against every stored id).
   */
  private async writeContributions(changes: KnowledgeChanges): Promise<void> {
    const pairs = (changes.removeContributions ?? []).map((ref) => contributionId(ref.entityId, ref.memoryId));
    const entities = [...(changes.deleteEntities ?? []), ...(changes.clearContributions ?? [])];
    const add = (changes.addContributions ?? []).map((record) => contributionToRow(this.accountId, record));
    if (pairs.length === 0 && entities.length === 0 && add.length === 0) return;
    await this.tables.entityContributions.exclusive(async (table) => {
      const remove = [...(pairs.length > 0 ? [inList('id', pairs)] : []), ...(entities.length > 0 ? [inList('entity_id', entities)] : [])];
      if (remove.length > 0) await table.delete(this.scope(or(...remove)));
      if (add.length > 0) await table.add(add);
    });
  }

  async getStatus(memoryId: string): Promise<ExtractionStatusRecord | null> {
    const rows = await this.tables.extractionStatus.table.query().where(this.scope(eq('id', memoryId))).limit(1).toArray();
    return rows[0] ? rowToStatus(rows[0] as Row) : null;
  }

  putStatus(record: ExtractionStatusRecord, options: { fresh?: boolean } = {}): Promise<void> {
    const row = statusToRow(this.accountId, record);
    if (options.fresh) return this.tables.extractionStatus.append([row]);
    return applyTo(this.tables.extractionStatus, this.accountId, [row], []);
  }

  deleteStatus(memoryIds: readonly string[]): Promise<void> {
    return applyTo(this.tables.extractionStatus, this.accountId, [], memoryIds);
  }

  async statusesIn(states: readonly ExtractionState[]): Promise<ExtractionStatusRecord[]> {
    const rows = await this.tables.extractionStatus.table.query().where(this.scope(inList('status', states))).toArray();
    return rows.map((row) => rowToStatus(row as Row));
  }

  /** Rows of one table in id order after `after`. */
  private async page(writer: TableWriter, after: string | null, limit: number): Promise<Row[]> {
    return (await writer.table
      .query()
      .where(this.scope(after !== null ? gt('id', after) : undefined))
      .orderBy([{ columnName: 'id', ascending: true }])
      .limit(limit)
      .toArray()) as Row[];
  }

  async entityPage(after: string | null, limit: number): Promise<EntityRecord[]> {
    return (await this.page(this.tables.entities, after, limit)).map(rowToEntity);
  }

  async factPage(after: string | null, limit: number): Promise<FactRecord[]> {
    return (await this.page(this.tables.facts, after, limit)).map(rowToFact);
  }

  async edgePage(after: string | null, limit: number): Promise<EdgeRecord[]> {
    return (await this.page(this.tables.edges, after, limit)).map(rowToEdge);
  }

  factsByIds(ids: readonly string[]): Promise<FactRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.facts(this.scope(inList('id', ids)));
  }

  edgesByIds(ids: readonly string[]): Promise<EdgeRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.edges(this.scope(inList('id', ids)));
  }

  async statusesOf(memoryIds: readonly string[]): Promise<ExtractionStatusRecord[]> {
    if (memoryIds.length === 0) return [];
    const rows = await this.tables.extractionStatus.table.query().where(this.scope(inList('id', memoryIds))).toArray();
    return rows.map((row) => rowToStatus(row as Row));
  }

  putStatuses(records: readonly ExtractionStatusRecord[]): Promise<void> {
    return applyTo(this.tables.extractionStatus, this.accountId, records.map((record) => statusToRow(this.accountId, record)), []);
  }

  async takenElsewhere(table: KnowledgeTable, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.tables[table].table
      .query()
      .where(and(ne('account_id', this.accountId), inList('id', ids)))
      .select(['id'])
      .toArray();
    return rows.map((row) => str(row as Row, 'id'));
  }

  async counts(): Promise<{ entities: number; contributions: number; facts: number; edges: number; statuses: number }> {
    const where = this.scope();
    const [entities, contributions, facts, edges, statuses] = await Promise.all([
      this.tables.entities.table.countRows(where),
      this.tables.entityContributions.table.countRows(where),
      this.tables.facts.table.countRows(where),
      this.tables.edges.table.countRows(where),
      this.tables.extractionStatus.table.countRows(where),
    ]);
    return { entities, contributions, facts, edges, statuses };
  }
}
