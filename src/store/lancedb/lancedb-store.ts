import * as lancedb from '@lancedb/lancedb';
import type { Connection, Table } from '@lancedb/lancedb';
import type { Schema } from 'apache-arrow';
import type {
  AccountStore,
  JobStore,
  KeyStore,
  KeywordCorpus,
  KnowledgeStore,
  CommitLoad,
  MaintenanceReport,
  MemoryPageRequest,
  MemoryStore,
  MemoryWithChunks,
  PendingSaveStore,
  SelectRequest,
  SelectResult,
  JobItemStore,
  Storage,
  StoreSnapshot,
  UsageStore,
  SearchTablesLoad,
  VectorSearchLoad,
  WatchStore,
} from '../../core/ports.js';
import type { MemoryField, SortKey } from '../../core/query/fields.js';
import type { ChunkInput, KeywordHit, MemoryFilter, MemoryRecord, VectorHit } from '../../core/types.js';
import { MEMORY_COLUMNS, readViews } from './columns.js';
import {
  and,
  arrayHasAny,
  contains,
  eq,
  FIELD_COLUMNS,
  filterToPredicate,
  gt,
  gte,
  inList,
  isTrue,
  listLiteral,
  literal,
  lt,
  lte,
  metadataTextPrefilter,
  ne,
  or,
  type Predicate,
} from './predicate.js';
import {
  accountToRow,
  jobToRow,
  keyToRow,
  memoryToRow,
  num,
  pendingToRow,
  rowToAccount,
  rowToJob,
  rowToKey,
  rowToMemory,
  rowToPending,
  rowToUsage,
  str,
  strings,
  usageToRow,
  rowToWatch,
  watchToRow,
} from './rows.js';
import {
  accountsSchema,
  apiKeysSchema,
  chunksSchema,
  usageEventsSchema,
  jobItemsSchema,
  chunksTableName,
  edgesSchema,
  entitiesSchema,
  entityContributionsSchema,
  extractionStatusSchema,
  factsSchema,
  jobsSchema,
  memoriesSchema,
  metaSchema,
  pendingSavesSchema,
  SCHEMA_VERSION,
  watchesSchema,
} from './schema.js';
import { backupStore } from './backup.js';
import { contributionToRow, LanceKnowledgeStore, legacyDocuments, tallyToJson } from './knowledge-store.js';
import { entityFromDocuments } from '../../core/knowledge/entity-tally.js';
import { gated, OperationGate } from './operation-gate.js';
import type { LeaseStore, Leases } from '../../core/cluster/leases.js';
import { LanceLeaseStore, leasesSchema } from './lease-table.js';
import { RecordTable } from './record-table.js';
import { isCommitConflict, TableWriter } from './table-writer.js';
import { MemoryRowCache } from './memory-row-cache.js';
import { PacedTrigger } from './paced-trigger.js';
import { PendingPassages } from './pending-passages.js';
import { VectorSearchBatcher } from './vector-search-batch.js';
import { maintainVectorIndex, VECTOR_INDEX_MAX_PARTS, VECTOR_INDEX_MIN_ROWS, vectorIndexPartitions, vectorIndexStats, vectorProbes } from './vector-index.js';

type Row = Record<string, unknown>;

/** Versions younger than this are never cleaned up: readers in flight may still use them. */
const KEEP_VERSIONS_MS = 10 * 60_000;
/** Below this many rows a filter scans fast enough; above it, the columns filters use get scalar indexes. */
const SCALAR_INDEX_MIN_ROWS = 5_000;
/**
 * Scalar indexes of the columns every lookup and filter uses (LanceDB prefilters with them, and
 * optimize() folds new rows into them): ids and memory ids (btree), account (bitmap: few values),
 * space and creation time (btree), tags (labelList: array_has_any).
 */
const SCALAR_INDEXES: Readonly<Record<'memories' | 'chunks', readonly (readonly [string, 'btree' | 'bitmap' | 'labelList'])[]>> = {
  memories: [
    ['id', 'btree'],
    ['account_id', 'bitmap'],
    ['space_id', 'btree'],
    ['created_at', 'btree'],
    ['tags', 'labelList'],
  ],
  chunks: [
    ['memory_id', 'btree'],
    ['account_id', 'bitmap'],
    ['space_id', 'btree'],
    ['created_at', 'btree'],
    ['tags', 'labelList'],
  ],
};

export interface OpenLanceStoreOptions {
  readonly uri: string;
  readonly vectorSpace: { readonly modelId: string; readonly dimension: number };
  /**
   * Run the full maintenance pass in the background after this many commits (0: never), paced by the cost
   * of the last background pass (MAINTENANCE_REST_FACTOR). While the search tables compact on their own
   * (compactSearchTablesEvery > 0) their commits do not count and the background pass leaves them out; an
   * explicit maintain() covers every table. Every write is a new table fragment; reads slow down as they pile up
   * (1,000 single-row saves: vector search 6.9 -> 2.3 ms, full-text 11.6 -> 1.3 ms, fetch by id 17 -> 1.5 ms
   * after one 73 ms compaction).
   */
  readonly maintainEveryWrites?: number;
  /**
   * Compact the tables searches read (memories, passages) on their own after this many commits to one of
   * them (0: only in the full pass), paced by the cost of the last such compaction
   * (SEARCH_COMPACTION_REST_FACTOR). A search pays for every fragment left since the last compaction.
   */
  readonly compactSearchTablesEvery?: number;
  /** Told after each compaction of the search tables (the daemon logs it at debug level). */
  readonly onSearchTablesCompacted?: (report: SearchCompactionReport) => void;
  /** Told after each background full pass (the daemon logs it at debug level). */
  readonly onMaintained?: (report: MaintenanceReport) => void;
  /** Told when background maintenance fails (it is retried on the next trigger). */
  readonly onMaintenanceError?: (error: unknown) => void;
  /**
   * LanceDB's caches (defaults 6 GB for index data, 1 GB for file metadata, and they fill up: the daemon
   * grew past 2 GB at 10k memories). Caps in MiB.
   */
  readonly cacheMb?: { readonly index: number; readonly metadata: number };
  /** Rows a memory or passage table needs before maintenance gives it scalar indexes (default 5,000). */
  readonly scalarIndexMinRows?: number;
  /** Passages the passages table needs before maintenance gives it a vector index (default 50,000). */
  readonly vectorIndexMinRows?: number;
  /** Parts of the vector index (the trained one and the deltas compactions add) past which maintenance trains it again as one (default 24). */
  readonly vectorIndexMaxParts?: number;
  /** LanceDB object-store options (credentials, endpoints); never logged. */
  readonly storageOptions?: Readonly<Record<string, string>>;
  /**
   * Set when other daemons share the store: reads look for their commits when the last look is older than
   * this (0: on every read); the start-up sweep of orphaned passages is skipped (a passage another daemon
   * is committing would look orphaned); maintenance runs only under the `maintenance` lease.
   */
  readonly shared?: { readonly readConsistencyMs: number };
}

/** What one compaction of the search tables did. */
export interface SearchCompactionReport {
  /** Tables optimized: those with commits since their last compaction. */
  readonly tables: readonly string[];
  readonly compactedFragments: number;
  readonly prunedVersions: number;
  readonly durationMs: number;
}

/** What openLanceStore returns: the Storage port, and the lease table daemons on one store coordinate with. */
export interface LanceStore extends Storage {
  readonly leaseStore: LeaseStore;
  /** Background maintenance claims this lease first (several daemons on one store). */
  useLeases(leases: Leases): void;
  /**
   * Compacts the memories and passages tables now (those with commits since their last compaction); null
   * when the full pass, a backup or another daemon holds maintenance. The background trigger calls it.
   */
  compactSearchTables(): Promise<SearchCompactionReport | null>;
  /**
   * The full pass: every table's compaction and version cleanup, then the index builds. `searchTables:
   * false` leaves the memories and passages tables' compaction to compactSearchTables (the background pass).
   */
  maintain(options?: { readonly searchTables?: boolean }): Promise<MaintenanceReport>;
}

const DEFAULT_CACHE_MB = { index: 256, metadata: 128 };
const MIB = 1024n * 1024n;

const DEFAULT_MAINTAIN_EVERY_WRITES = 50;
/** Memory rows kept in the process (MemoryRowCache): a few thousand notes, a small share of the daemon's RSS. */
const ROW_CACHE_BYTES = 16 * 1024 * 1024;
/** Values per metadata or content-hash lookup query: one scan of the memories for a batch, not one per value. */
const METADATA_LOOKUP_BATCH = 100;
/**
 * Background passes rest this many times as long as the last one took, so maintenance takes at most about
 * a tenth of the machine: a pass costs what the tables hold (it rewrites the scalar indexes of the rows it
 * compacts), and unpaced, passes ran every few saves (bench/README.md has the figures).
 */
const MAINTENANCE_REST_FACTOR = 10;
/** ... but never longer than this, so fragments cannot pile up for long under steady writes. */
const MAX_MAINTENANCE_REST_MS = 60_000;
/**
 * Commits to the memories or passages table before they are compacted on their own: every commit leaves a
 * fragment each search reads until a compaction (bench/README.md, issue #23 fifth session, has the cost).
 * A compaction is dear too: searches beside it are slower, and it adds a part to the vector index (and
 * past VECTOR_INDEX_MAX_PARTS a training, with a compaction that rewrites the table after it). A count of
 * 60 rather than 20 gave searches beside a long bulk job a lower tail and cost many clients' mix nothing
 * measurable (bench/README.md, "The compaction count of 60 in both orders").
 */
const DEFAULT_COMPACT_SEARCH_TABLES_EVERY = 60;
/**
 * The same while searches compare the passages not yet indexed in the process (PendingPassages): a commit
 * then costs a search only the memories table's fragment, while each compaction still adds a part to the
 * vector index and takes the daemon's time (bench/README.md, issue #23, "Passages not yet indexed, searched
 * in the process", has both costs).
 */
const SERVED_COMPACT_SEARCH_TABLES_EVERY = 300;
/**
 * A compaction of the search tables rests this many times as long as it took before the next: at most a
 * fifth of the time, lighter than the full pass's tenth because it is what keeps searches cheap.
 */
const SEARCH_COMPACTION_REST_FACTOR = 4;
/** ... and never longer than this. */
const MAX_SEARCH_COMPACTION_REST_MS = 20_000;
/**
 * When no commit has come for this long, SEARCH_COMPACTION_QUIET_AT commits are enough: the last commits of
 * a burst are compacted once writes stop, not left for every search to read until the next burst. Fewer
 * than that are left (a compaction of a large table costs more than a few fragments cost the reads).
 */
const SEARCH_COMPACTION_QUIET_MS = 2_000;
/** See SEARCH_COMPACTION_QUIET_MS: what a quarter of the count was when it was 20 (a quarter of a smaller count). */
const SEARCH_COMPACTION_QUIET_AT = 5;

export async function openLanceStore(options: OpenLanceStoreOptions): Promise<LanceStore> {
  const cache = options.cacheMb ?? DEFAULT_CACHE_MB;
  const session = new lancedb.Session(BigInt(cache.index) * MIB, BigInt(cache.metadata) * MIB);
  const db = await lancedb.connect(
    options.uri,
    {
      storageOptions: { ...options.storageOptions },
      ...(options.shared ? { readConsistencyInterval: options.shared.readConsistencyMs / 1000 } : {}),
    },
    session,
  );
  let storage: LanceStorage | undefined;
  const onCommit = () => storage?.noteWrite();
  const onSearchTableCommit = (name: 'memories' | 'chunks') => () => storage?.noteSearchTableCommit(name);
  const open = async (name: string, schema: Schema, committed = onCommit, changed?: () => void, appended?: (rows: readonly Row[]) => void) =>
    new TableWriter(await createOrOpen(db, name, schema), committed, changed, appended);
  const meta = await open('meta', metaSchema);
  await migrateSchema(db, meta);
  // Another daemon's writes would not empty it: a shared store reads every row from the tables.
  const rowCache = options.shared ? null : new MemoryRowCache(ROW_CACHE_BYTES);
  const memories = await open('memories', memoriesSchema, onSearchTableCommit('memories'), () => rowCache?.invalidate());
  // Another daemon's passages would not be in it either: a shared store asks LanceDB for every row.
  const pendingPassages = options.shared ? null : new PendingPassages(() => storage?.hasVectorIndex() ?? false);
  const chunks = await open(
    chunksTableName(options.vectorSpace.modelId, options.vectorSpace.dimension),
    chunksSchema(options.vectorSpace.dimension),
    onSearchTableCommit('chunks'),
    () => pendingPassages?.invalidate(),
    (rows) => pendingPassages?.add(rows),
  );
  const accounts = await open('accounts', accountsSchema);
  const keys = await open('api_keys', apiKeysSchema);
  const pending = await open('pending_saves', pendingSavesSchema);
  const jobs = await open('jobs', jobsSchema);
  const entities = await open('entities', entitiesSchema);
  const entityContributions = await open('entity_contributions', entityContributionsSchema);
  const facts = await open('facts', factsSchema);
  const edges = await open('edges', edgesSchema);
  const extractionStatus = await open('extraction_status', extractionStatusSchema);
  const usage = await open('usage_events', usageEventsSchema);
  const jobItems = await open('job_items', jobItemsSchema);
  const watches = await open('watches', watchesSchema);
  const leases = await open('leases', leasesSchema);
  await ensureFtsIndex(chunks.table);
  storage = new LanceStorage(db, options, {
    meta,
    memories,
    chunks,
    accounts,
    keys,
    pending,
    jobs,
    entities,
    entityContributions,
    facts,
    edges,
    extractionStatus,
    usage,
    jobItems,
    watches,
    leases,
  }, rowCache, pendingPassages);
  await storage.refreshVectorPartitions();
  if (pendingPassages && (await allRowsIndexed(chunks.table))) pendingPassages.markComplete();
  return storage;
}

/**
 * Compaction, index update and cleanup of one table's versions older than KEEP_VERSIONS_MS. Unlocked first:
 * a concurrent user write wins any conflict and the compaction is the one that fails (measured: 0 of 180
 * writes failed, 15 of 15 compactions yielded). Under sustained writes it would never finish unlocked, so a
 * conflict retries it with the table's writes paused (tens of ms).
 */
async function optimizeTable(writer: TableWriter): Promise<lancedb.OptimizeStats> {
  const options = { cleanupOlderThan: new Date(Date.now() - KEEP_VERSIONS_MS) };
  try {
    return await writer.table.optimize(options);
  } catch (error) {
    if (!isCommitConflict(error)) throw error;
    return writer.rewrite((table) => table.optimize(options));
  }
}

/** Two daemons starting on one fresh store may both create a table: the one that loses opens the winner's. */
async function createOrOpen(db: Connection, name: string, schema: Schema): Promise<Table> {
  try {
    return await db.createEmptyTable(name, schema, { mode: 'create', existOk: true });
  } catch (error) {
    if (!/already exists|conflict/i.test(String(error))) throw error;
    return db.openTable(name);
  }
}

/** Columns added to the memories table since schema 1: [the schema version that added it, its name]. */
const ADDED_MEMORY_COLUMNS: readonly (readonly [number, string])[] = [
  [2, 'context'],
  [3, 'author'],
];

/**
 * Brings a data directory to SCHEMA_VERSION before any table is opened with the current schema (LanceDB
 * refuses to open a table whose schema differs). A fresh directory just records the version. Each step is
 * idempotent, so a crash before the version is written re-runs it harmlessly on the next start.
 */
async function migrateSchema(db: lancedb.Connection, meta: TableWriter): Promise<void> {
  const rows = await meta.table.query().where(eq('key', 'schema_version')).toArray();
  if (rows.length === 0) {
    await meta.append([{ key: 'schema_version', value: String(SCHEMA_VERSION) }]);
    return;
  }
  const found = Number(str(rows[0] as Row, 'value'));
  if (found > SCHEMA_VERSION) {
    throw new Error(
      `The data directory was written by a newer mem (schema ${found}, this one knows ${SCHEMA_VERSION}). Upgrade mem.`,
    );
  }
  if (found === SCHEMA_VERSION) return;
  const names = new Set(await db.tableNames());
  if (names.has('memories')) {
    const memories = await db.openTable('memories');
    try {
      const present = new Set((await memories.schema()).fields.map((field) => field.name));
      // In memoriesSchema's order; each a non-nullable utf8 column that is empty for existing memories.
      for (const [version, column] of ADDED_MEMORY_COLUMNS) {
        if (found < version && !present.has(column)) {
          await memories.addColumns([{ name: column, valueSql: "CAST('' AS STRING)" }]);
        }
      }
    } finally {
      memories.close();
    }
  }
  if (found < 4 && names.has('entities')) await moveEntityContributions(db);
  await meta.exclusive((table) =>
    table.update({ where: eq('key', 'schema_version'), valuesSql: { value: literal(String(SCHEMA_VERSION)) } }),
  );
}

/**
 * Schema 4: each entity's `documents` JSON (what every memory naming it contributed) becomes rows of
 * entity_contributions, and the entity row holds their tally instead. Idempotent: the rows are merged by id,
 * and the column goes last, so a crash part-way re-runs every step on the next start.
 */
async function moveEntityContributions(db: lancedb.Connection): Promise<void> {
  const entities = await db.openTable('entities');
  try {
    const present = new Set((await entities.schema()).fields.map((field) => field.name));
    if (!present.has('documents')) return;
    if (!present.has('tally')) await entities.addColumns([{ name: 'tally', valueSql: "CAST('' AS STRING)" }]);
    const rows = (await entities.query().toArray()) as Row[];
    if (rows.length > 0) {
      const contributions = await createOrOpen(db, 'entity_contributions', entityContributionsSchema);
      try {
        const added: Row[] = [];
        const updated: Row[] = [];
        for (const row of rows) {
          const accountId = str(row, 'account_id');
          const documents = legacyDocuments(str(row, 'documents'));
          // The tally does not depend on the entity's type.
          const entity = entityFromDocuments({ id: str(row, 'id'), type: 'concept' }, documents);
          for (const [memoryId, contribution] of Object.entries(documents)) {
            added.push(contributionToRow(accountId, { entityId: str(row, 'id'), memoryId, contribution }));
          }
          // An entity left without contributions keeps a tally that makes its next change read them all.
          // List columns come back as Arrow vectors, which a write does not take.
          const lists = Object.fromEntries(['aliases', 'memory_ids', 'match_keys'].map((column) => [column, strings(row, column)]));
          updated.push({ ...row, ...lists, tally: entity ? tallyToJson(entity.tally) : '' });
        }
        for (let at = 0; at < added.length; at += MIGRATION_BATCH) {
          await contributions.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(added.slice(at, at + MIGRATION_BATCH));
        }
        for (let at = 0; at < updated.length; at += MIGRATION_BATCH) {
          await entities.mergeInsert('id').whenMatchedUpdateAll().execute(updated.slice(at, at + MIGRATION_BATCH));
        }
      } finally {
        contributions.close();
      }
    }
    await entities.dropColumns(['documents']);
  } finally {
    entities.close();
  }
}

const MIGRATION_BATCH = 10_000;

/** Whether the passages' indexes (full-text, and vector when there is one) hold every row of the table. */
async function allRowsIndexed(table: Table): Promise<boolean> {
  for (const index of await table.listIndices()) {
    if (!index.columns.includes('text') && !index.columns.includes('vector')) continue;
    const stats = await table.indexStats(index.name);
    if (!stats || stats.numUnindexedRows > 0) return false;
  }
  return true;
}

async function ensureFtsIndex(table: Table): Promise<void> {
  const hasIndex = async () => (await table.listIndices()).some((index) => index.columns.includes('text') && index.indexType === 'FTS');
  if (await hasIndex()) return;
  try {
    await table.createIndex('text', {
      config: lancedb.Index.fts({ withPosition: false, stem: true, removeStopWords: true, asciiFolding: true }),
    });
  } catch (error) {
    // Two daemons starting on one fresh store: the other one's index committed first, and it is the same index.
    if (!isCommitConflict(error)) throw error;
    await table.checkoutLatest();
    if (!(await hasIndex())) throw error;
  }
}

interface Tables {
  readonly meta: TableWriter;
  readonly memories: TableWriter;
  readonly chunks: TableWriter;
  readonly accounts: TableWriter;
  readonly keys: TableWriter;
  readonly pending: TableWriter;
  readonly jobs: TableWriter;
  readonly entities: TableWriter;
  readonly entityContributions: TableWriter;
  readonly facts: TableWriter;
  readonly edges: TableWriter;
  readonly extractionStatus: TableWriter;
  readonly usage: TableWriter;
  readonly jobItems: TableWriter;
  readonly watches: TableWriter;
  readonly leases: TableWriter;
}

function filterPredicate(accountId: string, filter: MemoryFilter): Predicate {
  return and(
    eq('account_id', accountId),
    filter.spaceId !== undefined ? eq('space_id', filter.spaceId) : undefined,
    filter.tags && filter.tags.length > 0 ? arrayHasAny('tags', filter.tags) : undefined,
    filter.after !== undefined ? gte('created_at', filter.after) : undefined,
    filter.before !== undefined ? lte('created_at', filter.before) : undefined,
  );
}

/**
 * The k best of LanceDB's hits and the process's (PendingPassages), best first; a passage in both (indexed by
 * a compaction that has not yet ended) is taken once.
 */
function mergeBest<T extends { readonly memoryId: string; readonly seq: number }>(indexed: readonly T[], pending: readonly T[], value: (hit: T) => number, k: number): T[] {
  const seen = new Set(indexed.map((hit) => `${hit.memoryId}#${hit.seq}`));
  const merged = [...indexed, ...pending.filter((hit) => !seen.has(`${hit.memoryId}#${hit.seq}`))];
  return merged.sort((a, b) => value(b) - value(a)).slice(0, k);
}

/** The filter narrows a search to its account and nothing else (no space, tags or dates). */
function accountOnly(filter: MemoryFilter): boolean {
  return filter.spaceId === undefined && !(filter.tags && filter.tags.length > 0) && filter.after === undefined && filter.before === undefined;
}

/** LanceDB ordering of a sort key; missing values (NULL updated_at) last in both directions, as in core. */
function ordering(key: SortKey): { columnName: string; ascending: boolean; nullsFirst: boolean } {
  const field = key.field;
  if (field.kind !== 'text' && field.kind !== 'date') throw new Error(`cannot order by ${field.name} inside LanceDB`);
  return { columnName: FIELD_COLUMNS[field.name], ascending: key.direction === 1, nullsFirst: false };
}

/** Words only: LanceDB's full-text query syntax must never see user punctuation. */
function keywordQuery(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 64).join(' ');
}

class LanceMemoryStore implements MemoryStore {
  constructor(
    readonly accountId: string,
    private readonly tables: Tables,
    private readonly modelId: string,
    /** Shared by every account's store: searches of different accounts differ in their filter and never share a query. */
    private readonly vectorSearches: VectorSearchBatcher,
    /** Shared too (keyed by account); null on a shared store. */
    private readonly rowCache: MemoryRowCache | null,
    /** The passages not yet indexed, when searches may read them from the process; null on a shared store. */
    private readonly pending: PendingPassages | null,
  ) {}

  private chunkRows(memory: MemoryRecord, chunks: readonly ChunkInput[]): Row[] {
    return chunks.map((chunk) => ({
      id: `${memory.id}#${chunk.seq}`,
      memory_id: memory.id,
      account_id: this.accountId,
      space_id: memory.spaceId,
      tags: [...memory.tags],
      created_at: memory.createdAt,
      seq: chunk.seq,
      text: chunk.text,
      model: this.modelId,
      vector: Array.from(chunk.vector),
    }));
  }

  async insert(memory: MemoryRecord, chunks: readonly ChunkInput[] | Promise<readonly ChunkInput[]>): Promise<void> {
    // Both tables commit at once: one commit's wait instead of two; passages still being embedded commit
    // when they arrive, the memory row meanwhile (a commit is mostly waiting on LanceDB's writes, and the
    // embedding is another thread's work). A crash in between leaves either a memory without vectors (found
    // by idsWithoutVectors, repaired by reindex) or vectors without a memory (search skips them; the first
    // maintenance pass after a start deletes them).
    const memoryWrite = this.tables.memories.append([memoryToRow(this.accountId, memory)]);
    const chunkWrite =
      chunks instanceof Promise
        ? chunks.then((passages) => this.tables.chunks.append(this.chunkRows(memory, passages)))
        : this.tables.chunks.append(this.chunkRows(memory, chunks));
    const [memoryWritten, chunksWritten] = await Promise.allSettled([memoryWrite, chunkWrite]);
    if (memoryWritten.status === 'rejected') {
      if (chunksWritten.status === 'fulfilled') {
        const where = and(eq('account_id', this.accountId), eq('memory_id', memory.id));
        await this.tables.chunks.exclusive((table) => table.delete(where)).catch(() => undefined);
      }
      throw memoryWritten.reason;
    }
    if (chunksWritten.status === 'rejected') {
      // A save that fails leaves no memory behind (its passages could not be embedded or written).
      const where = and(eq('account_id', this.accountId), eq('id', memory.id));
      await this.tables.memories.exclusive((table) => table.delete(where)).catch(() => undefined);
      throw chunksWritten.reason;
    }
  }

  async get(id: string): Promise<MemoryRecord | null> {
    return (await this.getMany([id]))[0] ?? null;
  }

  /** The memories of these ids that exist (in no set order), from the row cache where it has them. */
  async getMany(ids: readonly string[]): Promise<MemoryRecord[]> {
    if (ids.length === 0) return [];
    const cache = this.rowCache;
    const found: MemoryRecord[] = [];
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const cached = cache?.get(this.accountId, id);
      if (cached) found.push(cached);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const epoch = cache?.epoch() ?? 0;
    const rows = await this.tables.memories.table
      .query()
      .where(and(eq('account_id', this.accountId), missing.length === 1 ? eq('id', missing[0] as string) : inList('id', missing)))
      .limit(missing.length)
      .toArray();
    const read = rows.map((row) => rowToMemory(row as Row));
    cache?.remember(this.accountId, read, epoch);
    return [...found, ...read];
  }

  async findByContentHash(hash: string): Promise<MemoryRecord | null> {
    const rows = await this.tables.memories.table
      .query()
      .where(and(eq('account_id', this.accountId), eq('content_hash', hash)))
      .limit(1)
      .toArray();
    return rows[0] ? rowToMemory(rows[0] as Row) : null;
  }

  async findManyByContentHash(hashes: readonly string[]): Promise<MemoryRecord[]> {
    const unique = [...new Set(hashes)];
    const found: MemoryRecord[] = [];
    for (let i = 0; i < unique.length; i += METADATA_LOOKUP_BATCH) {
      const rows = await this.tables.memories.table
        .query()
        .where(and(eq('account_id', this.accountId), inList('content_hash', unique.slice(i, i + METADATA_LOOKUP_BATCH))))
        .toArray();
      for (const row of rows) found.push(rowToMemory(row as Row));
    }
    return found;
  }

  async findByMetadata(key: string, value: string): Promise<MemoryRecord | null> {
    return (await this.findManyByMetadata(key, [value])).get(value) ?? null;
  }

  async findManyByMetadata(key: string, values: readonly string[]): Promise<Map<string, MemoryRecord>> {
    const found = new Map<string, MemoryRecord>();
    const wanted = new Set(values);
    // Metadata is stored as compact JSON: the pair appears verbatim in the text, then the parsed value decides.
    const needle = (value: string) => `${JSON.stringify(key)}:${JSON.stringify(value)}`;
    const unique = [...wanted];
    for (let i = 0; i < unique.length; i += METADATA_LOOKUP_BATCH) {
      const part = unique.slice(i, i + METADATA_LOOKUP_BATCH);
      const needles = part.map(needle);
      // Every row a needle matches holds the needles' common prefix (for a folder's files, the key and the
      // folder's path). Asked first, it lets LanceDB skip the needles on every batch of rows without it,
      // which is all but the folder's own files: one pass over the memories instead of one per needle
      // (bench/README.md, issue #23, "A folder's first scan in batches of 128").
      const shared = needles.length > 1 ? contains('metadata', commonPrefix(needles)) : undefined;
      const rows = await this.tables.memories.table
        .query()
        .where(and(eq('account_id', this.accountId), shared, or(...needles.map((text) => contains('metadata', text)))))
        // A needle can also occur inside another field's text: room for a few such rows per value.
        .limit(50 * part.length)
        .toArray();
      for (const row of rows) {
        const memory = rowToMemory(row as Row);
        const value = memory.metadata[key];
        if (typeof value === 'string' && wanted.has(value) && !found.has(value)) found.set(value, memory);
      }
    }
    return found;
  }

  async replace(memory: MemoryRecord, chunks?: readonly ChunkInput[]): Promise<void> {
    const scope = and(eq('account_id', this.accountId), eq('memory_id', memory.id));
    await this.tables.memories.exclusive(async (table) => {
      await table
        .mergeInsert('id')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute([memoryToRow(this.accountId, memory)]);
    });
    if (chunks) {
      const rows = this.chunkRows(memory, chunks);
      await this.tables.chunks.exclusive(async (table) => {
        await table.delete(scope);
        if (rows.length > 0) await table.add(rows);
      });
    } else {
      await this.tables.chunks.exclusive(async (table) => {
        await table.update({
          where: scope,
          valuesSql: {
            space_id: literal(memory.spaceId),
            tags: listLiteral(memory.tags),
            created_at: literal(memory.createdAt),
          },
        });
      });
    }
  }

  async delete(ids: readonly string[]): Promise<string[]> {
    const existing = (await this.getMany(ids)).map((memory) => memory.id);
    if (existing.length === 0) return [];
    // Vectors first: a crash in between leaves a memory that can still be deleted again, never
    // vectors pointing at nothing.
    await this.tables.chunks.exclusive((table) =>
      table.delete(and(eq('account_id', this.accountId), inList('memory_id', existing))),
    );
    await this.tables.memories.exclusive((table) =>
      table.delete(and(eq('account_id', this.accountId), inList('id', existing))),
    );
    return existing;
  }

  /**
   * Newest first. The page is read as sortedPage reads one: the sort keys of every match first, then the
   * page's rows by id (from the row cache where it has them), since LanceDB sorts every matching row with
   * every column it reads. A memory deleted between the two reads drops out of the page.
   */
  async list(filter: MemoryFilter, page: { limit: number; offset: number }) {
    const where = filterPredicate(this.accountId, filter);
    const keys = this.tables.memories.table
      .query()
      .where(where)
      .select(['id', 'created_at'])
      .orderBy([
        { columnName: 'created_at', ascending: false },
        { columnName: 'id', ascending: false },
      ])
      .offset(page.offset)
      .limit(page.limit)
      .toArray();
    const [keyRows, total] = await Promise.all([keys, this.tables.memories.table.countRows(where)]);
    const ids = keyRows.map((row: Row) => str(row, 'id'));
    const byId = new Map((await this.getMany(ids)).map((memory) => [memory.id, memory]));
    return { items: ids.flatMap((id) => byId.get(id) ?? []), total };
  }

  count(filter: MemoryFilter = {}): Promise<number> {
    return this.tables.memories.table.countRows(filterPredicate(this.accountId, filter));
  }

  async vectorSearch(vector: Float32Array, filter: MemoryFilter, k: number): Promise<VectorHit[]> {
    const where = filterPredicate(this.accountId, filter);
    // Compared before LanceDB is asked: a compaction that ends meanwhile drops rows from the set only once
    // LanceDB's indexes hold them (PendingPassages).
    const pending = this.pending?.servesVectors() ? this.pending.nearest(this.accountId, filter, vector, k) : null;
    const fast = pending !== null;
    const search = (postfilter: boolean) => this.vectorSearches.search(vector, { where, postfilter, limit: k, fast });
    // Without a vector index LanceDB compares the query with every passage, and a filter applied first
    // (prefilter) costs more than the scan itself, more so with more passages (bench/README.md, "Vector
    // search: the account filter after the scan"). A search filtered by its account alone, in a store most
    // of whose passages are that account's, first takes the k nearest passages of all and keeps this
    // account's: when all k are, they are exactly the k nearest of the account's; when not (other accounts'
    // passages among them, or the account holds fewer than k), the filtered search answers.
    let rows: Row[] | null = null;
    if (accountOnly(filter)) {
      rows = await search(true);
      if (rows.length < k) rows = null;
    }
    rows ??= await search(false);
    const hits = rows.map((row: Row) => ({
      memoryId: str(row, 'memory_id'),
      seq: num(row, 'seq'),
      text: str(row, 'text'),
      similarity: 1 - num(row, '_distance'),
    }));
    if (!pending || pending.length === 0) return hits;
    const extra = pending.map((hit) => ({ memoryId: hit.memoryId, seq: hit.seq, text: hit.text, similarity: 1 - hit.distance }));
    return mergeBest(hits, extra, (hit) => hit.similarity, k);
  }

  async keywordSearch(text: string, filter: MemoryFilter, k: number, corpus?: KeywordCorpus): Promise<KeywordHit[]> {
    const query = keywordQuery(text);
    if (!query) return [];
    // As in vectorSearch: the pending passages are scored before LanceDB is asked.
    const pending = corpus && this.pending?.servesKeywords() ? this.pending.keyword(this.accountId, filter, query, k, corpus) : null;
    let search = this.tables.chunks.table.query().fullTextSearch(new lancedb.MatchQuery(query, 'text'));
    if (pending) search = search.fastSearch();
    const rows = await search
      .where(filterPredicate(this.accountId, filter))
      .select(['memory_id', 'seq', 'text', '_score'])
      .limit(k)
      .toArray();
    const hits = rows.map((row: Row) => ({
      memoryId: str(row, 'memory_id'),
      seq: num(row, 'seq'),
      text: str(row, 'text'),
      score: num(row, '_score'),
    }));
    if (!pending || pending.length === 0) return hits;
    return mergeBest(hits, pending, (hit) => hit.score, k);
  }

  passageCount(): Promise<number> {
    return this.tables.chunks.table.countRows(eq('account_id', this.accountId));
  }

  async scanPassages(visit: (text: string) => void): Promise<number> {
    // Arrow batches, not row objects: at 100k memories this reads ~100k strings and nothing else.
    const result = await this.tables.chunks.table.query().where(eq('account_id', this.accountId)).select(['text']).toArrow();
    let count = 0;
    for (const batch of result.batches) {
      const column = batch.getChild('text');
      if (!column) continue;
      for (let i = 0; i < column.length; i++) {
        const text = column.get(i) as unknown;
        if (typeof text === 'string') visit(text);
        count += 1;
      }
    }
    return count;
  }

  async ids(options: { turbo?: boolean } = {}): Promise<string[]> {
    const where = and(eq('account_id', this.accountId), options.turbo !== undefined ? eq('turbo', options.turbo) : undefined);
    const rows = await this.tables.memories.table.query().where(where).select(['id']).toArray();
    return rows.map((row: Row) => str(row, 'id'));
  }

  async idsWithoutVectors(limit: number): Promise<string[]> {
    const scope = eq('account_id', this.accountId);
    const [memoryRows, chunkRows] = await Promise.all([
      this.tables.memories.table.query().where(scope).select(['id']).toArray(),
      this.tables.chunks.table.query().where(scope).select(['memory_id']).toArray(),
    ]);
    const embedded = new Set(chunkRows.map((row: Row) => str(row, 'memory_id')));
    const missing: string[] = [];
    for (const row of memoryRows) {
      const id = str(row as Row, 'id');
      if (!embedded.has(id)) missing.push(id);
      if (missing.length >= limit) break;
    }
    return missing;
  }

  async contentBytes(): Promise<number> {
    // Summed over the Arrow column: no object per row (at 100k memories, 137 ms as rows).
    const result = await this.tables.memories.table
      .query()
      .where(eq('account_id', this.accountId))
      .select(['size_bytes'])
      .toArrow();
    let sum = 0;
    for (const batch of result.batches) {
      const values = (batch.getChild('size_bytes')?.toArray() ?? []) as ArrayLike<number>;
      for (let i = 0; i < values.length; i++) sum += values[i] ?? 0;
    }
    return sum;
  }

  async select(request: SelectRequest): Promise<SelectResult> {
    const table = this.tables.memories.table;
    const where = and(
      eq('account_id', this.accountId),
      request.where ? filterToPredicate(request.where) : undefined,
      request.narrow ? metadataTextPrefilter(request.narrow) : undefined,
    );
    const fields = [...new Set(['id' as const, ...request.fields])];
    if (request.orderBy && request.orderBy.length > 0 && request.page) return this.sortedPage(where, fields, request.orderBy, request.page);
    let query = table.query().where(where).select(fields.map((field) => MEMORY_COLUMNS[field]));
    if (request.orderBy && request.orderBy.length > 0) query = query.orderBy(request.orderBy.map(ordering));
    if (request.page) query = query.offset(request.page.offset).limit(request.page.limit);
    const [result, total] = await Promise.all([query.toArrow(), request.page ? table.countRows(where) : null]);
    const rows = readViews(result, fields);
    return { rows, total: total ?? rows.length };
  }

  /**
   * A sorted page: LanceDB sorts every matching row with every column it selects, so the sort keys are read
   * first, and the page's fields only for the page's ids (bench/README.md, issue #23, "Many clients at
   * 100,000 memories", has what each costs). A memory deleted between the two reads drops out of the page.
   */
  private async sortedPage(where: Predicate, fields: readonly MemoryField[], orderBy: readonly SortKey[], page: { readonly limit: number; readonly offset: number }): Promise<SelectResult> {
    const table = this.tables.memories.table;
    const order = orderBy.map(ordering);
    const keys = table
      .query()
      .where(where)
      .select([...new Set(['id', ...order.map((key) => key.columnName)])])
      .orderBy(order)
      .offset(page.offset)
      .limit(page.limit)
      .toArray();
    const [keyRows, total] = await Promise.all([keys, table.countRows(where)]);
    const ids = keyRows.map((row: Row) => str(row, 'id'));
    if (ids.length === 0) return { rows: [], total };
    const result = await table
      .query()
      .where(and(eq('account_id', this.accountId), inList('id', ids)))
      .select(fields.map((field) => MEMORY_COLUMNS[field]))
      .limit(ids.length)
      .toArrow();
    const byId = new Map(readViews(result, fields).map((view) => [view.id, view]));
    return { rows: ids.flatMap((id) => byId.get(id) ?? []), total };
  }

  async page(request: MemoryPageRequest): Promise<MemoryRecord[]> {
    const since = request.changedSince;
    const where = and(
      eq('account_id', this.accountId),
      request.after !== null ? gt('id', request.after) : undefined,
      request.spaceId !== undefined ? eq('space_id', request.spaceId) : undefined,
      since !== undefined ? or(gte('created_at', since), gte('updated_at', since)) : undefined,
    );
    const rows = await this.tables.memories.table
      .query()
      .where(where)
      .orderBy([{ columnName: 'id', ascending: true }])
      .limit(request.limit)
      .toArray();
    return rows.map((row) => rowToMemory(row as Row));
  }

  async chunksOf(ids: readonly string[]): Promise<Map<string, ChunkInput[]>> {
    const result = new Map<string, ChunkInput[]>();
    if (ids.length === 0) return result;
    const rows = await this.tables.chunks.table
      .query()
      .where(and(eq('account_id', this.accountId), inList('memory_id', ids)))
      .select(['memory_id', 'seq', 'text', 'vector'])
      .toArray();
    for (const row of rows as Row[]) {
      const memoryId = str(row, 'memory_id');
      const list = result.get(memoryId) ?? [];
      list.push({ seq: num(row, 'seq'), text: str(row, 'text'), vector: vectorOf(row.vector) });
      result.set(memoryId, list);
    }
    for (const list of result.values()) list.sort((a, b) => a.seq - b.seq);
    return result;
  }

  async idsWithVectors(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.tables.chunks.table
      .query()
      .where(and(eq('account_id', this.accountId), inList('memory_id', ids)))
      .select(['memory_id'])
      .toArray();
    return [...new Set(rows.map((row: Row) => str(row, 'memory_id')))];
  }

  async deletePassages(ids: readonly string[]): Promise<string[]> {
    const holders = await this.idsWithVectors(ids);
    if (holders.length > 0) {
      await this.tables.chunks.exclusive((table) => table.delete(and(eq('account_id', this.accountId), inList('memory_id', holders))));
    }
    return holders;
  }

  async existingIds(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.tables.memories.table
      .query()
      .where(and(eq('account_id', this.accountId), inList('id', ids)))
      .select(['id'])
      .toArray();
    return rows.map((row: Row) => str(row, 'id'));
  }

  async takenElsewhere(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.tables.memories.table
      .query()
      .where(and(ne('account_id', this.accountId), inList('id', ids)))
      .select(['id'])
      .toArray();
    return rows.map((row: Row) => str(row, 'id'));
  }

  async putMany(entries: readonly MemoryWithChunks[]): Promise<void> {
    if (entries.length === 0) return;
    const ids = entries.map((entry) => entry.memory.id);
    // Memory rows first, as in insert(): a crash in between leaves memories without (current) vectors,
    // which reindex repairs, never vectors without a memory.
    await this.tables.memories.exclusive(async (table) => {
      await table
        .mergeInsert('id')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute(entries.map((entry) => memoryToRow(this.accountId, entry.memory)));
    });
    const rows = entries.flatMap((entry) => this.chunkRows(entry.memory, entry.chunks));
    await this.tables.chunks.exclusive(async (table) => {
      await table.delete(and(eq('account_id', this.accountId), inList('memory_id', ids)));
      if (rows.length > 0) await table.add(rows);
    });
  }
}

/** A vector column value (an Arrow vector, or a plain array) as a Float32Array. */
function vectorOf(value: unknown): Float32Array {
  if (value instanceof Float32Array) return value;
  const items = value as { toArray?: () => ArrayLike<number> } | ArrayLike<number> | null | undefined;
  if (!items) return new Float32Array();
  if (typeof (items as { toArray?: unknown }).toArray === 'function') {
    return Float32Array.from((items as { toArray: () => ArrayLike<number> }).toArray());
  }
  return Float32Array.from(items as ArrayLike<number>);
}

class LanceStorage implements LanceStore {
  readonly uri: string;
  readonly leaseStore: LeaseStore;
  private leases: Leases | null = null;
  readonly vectorSpace: { readonly modelId: string; readonly dimension: number };
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly pendingSaves: PendingSaveStore;
  readonly jobs: JobStore;
  readonly usage: UsageStore;
  readonly jobItems: JobItemStore;
  readonly watches: WatchStore;
  private maintaining: Promise<MaintenanceReport> | null = null;
  /** Whether the pass in progress compacts the search tables too. */
  private maintainingSearchTables = false;
  /** Set while a backup copies the directory: maintenance (which writes outside the writers) waits for it. */
  private backingUp: Promise<unknown> | null = null;
  private backups: Promise<unknown> = Promise.resolve();
  /** Multi-table operations; a backup copies between them. */
  private readonly gate = new OperationGate();
  /** Commits to the tables the full pass covers since it last ran (see maintenanceCommit). */
  private writesSinceMaintenance = 0;
  private readonly maintenance: PacedTrigger;
  private closed = false;
  /** Commits to each search table since it was last compacted. */
  private readonly searchTableCommits = { memories: 0, chunks: 0 };
  private readonly searchCompaction: PacedTrigger;
  private compactingSearch: Promise<SearchCompactionReport | null> | null = null;
  /** Orphaned passages can only come from a crash, so the first maintenance pass after a start looks for them. */
  private orphansSwept = false;
  private readonly vectorSearches: VectorSearchBatcher;
  /** The vector index's partitions as far as maintenance last saw (null: no index, searches are exact). */
  private vectorPartitions: number | null = null;
  /** Its parts as last read (at open, after each pass and each compaction of the passages): for GET /v1/status. */
  private vectorIndexParts: number | null = null;
  /** Compactions of the search tables finished, and their summed duration: for GET /v1/status. */
  private readonly searchCompactions = { count: 0, ms: 0 };

  constructor(
    private readonly db: Connection,
    private readonly options: OpenLanceStoreOptions,
    private readonly tables: Tables,
    private readonly rowCache: MemoryRowCache | null,
    /** Null on a shared store. */
    private readonly pendingPassages: PendingPassages | null,
  ) {
    this.uri = options.uri;
    this.vectorSpace = options.vectorSpace;
    this.leaseStore = new LanceLeaseStore(tables.leases);
    this.vectorSearches = new VectorSearchBatcher(tables.chunks.table, (prefiltered) =>
      this.vectorPartitions === null ? null : vectorProbes(this.vectorPartitions, prefiltered),
    );
    this.maintenance = new PacedTrigger({
      every: options.maintainEveryWrites ?? DEFAULT_MAINTAIN_EVERY_WRITES,
      pending: () => this.writesSinceMaintenance,
      restFactor: MAINTENANCE_REST_FACTOR,
      maxRestMs: MAX_MAINTENANCE_REST_MS,
      run: async () => {
        // The search tables have a compaction of their own (unless it is off): the pass leaves them to it.
        const report = await this.maintain({ searchTables: !this.searchTablesCompactOnTheirOwn() });
        this.options.onMaintained?.(report);
        return true;
      },
      onError: (error) => this.options.onMaintenanceError?.(error),
    });
    const compactEvery = options.compactSearchTablesEvery ?? DEFAULT_COMPACT_SEARCH_TABLES_EVERY;
    this.searchCompaction = new PacedTrigger({
      every: options.compactSearchTablesEvery !== undefined ? compactEvery : () => this.searchCompactionCount(),
      quietMs: SEARCH_COMPACTION_QUIET_MS,
      quietAt: Math.max(1, Math.min(SEARCH_COMPACTION_QUIET_AT, Math.floor(compactEvery / 4))),
      pending: () => this.pendingSearchCommits(),
      restFactor: SEARCH_COMPACTION_REST_FACTOR,
      maxRestMs: MAX_SEARCH_COMPACTION_REST_MS,
      run: async () => {
        const report = await this.compactSearchTables();
        if (report) this.options.onSearchTablesCompacted?.(report);
        return report !== null;
      },
      onError: (error) => this.options.onMaintenanceError?.(error),
    });
    // A shared store has no orphans of a crash to look for at start: see OpenLanceStoreOptions.shared.
    this.orphansSwept = options.shared !== undefined;
    const accounts = new RecordTable(tables.accounts, accountToRow, rowToAccount);
    const keys = new RecordTable(tables.keys, keyToRow, rowToKey);
    const pending = new RecordTable(tables.pending, pendingToRow, rowToPending);
    const jobs = new RecordTable(tables.jobs, jobToRow, rowToJob);
    this.accounts = {
      create: (account) => accounts.insert(account),
      get: (id) => accounts.first(eq('id', id)),
      owner: () => accounts.first(isTrue('is_owner')),
      list: () => accounts.all(),
      findByEmail: (email) => accounts.first(eq('email', email)),
      replace: (account) => accounts.upsert(account),
      delete: async (id) => {
        await tables.keys.exclusive((table) => table.delete(eq('account_id', id)));
        return tables.accounts.exclusive(async (table) => {
          if ((await table.countRows(eq('id', id))) === 0) return false;
          await table.delete(eq('id', id));
          return true;
        });
      },
    };
    this.keys = {
      create: (key) => keys.insert(key),
      findByHash: (hash) => keys.first(eq('hash', hash)),
      listForAccount: async (accountId) =>
        (await keys.all(eq('account_id', accountId))).sort((a, b) => a.createdAt - b.createdAt),
      get: (accountId, id) => keys.owned(accountId, id),
      replace: (key) => keys.upsert(key),
      delete: (accountId, id) => keys.deleteOwned(accountId, id),
    };
    this.pendingSaves = {
      put: (record) => pending.upsert(record),
      get: (accountId, id) => pending.owned(accountId, id),
      unfinished: () => pending.unfinished(),
    };
    this.jobs = {
      put: (record) => jobs.upsert(record),
      get: (accountId, id) => jobs.owned(accountId, id),
      list: (accountId, limit) => jobs.all(eq('account_id', accountId), { limit }),
      unfinished: () => jobs.unfinished(),
    };
    this.jobItems = this.jobItemStore();
    gated(this.accounts, this.gate, ['delete']);
    gated(this as LanceStorage, this.gate, ['purge']);
    const watches = new RecordTable(tables.watches, watchToRow, rowToWatch);
    this.watches = {
      put: (record) => watches.upsert(record),
      get: (accountId, id) => watches.owned(accountId, id),
      list: async (accountId) => (await watches.all(eq('account_id', accountId))).sort((a, b) => a.createdAt - b.createdAt),
      all: async () => (await watches.all()).sort((a, b) => a.createdAt - b.createdAt),
      delete: (accountId, id) => watches.deleteOwned(accountId, id),
    };
    this.usage = {
      append: (events) => (events.length === 0 ? Promise.resolve() : tables.usage.append(events.map(usageToRow))),
      events: async (accountId, range, keyType) => {
        const where = and(
          eq('account_id', accountId),
          gte('at', range.since),
          lt('at', range.until),
          keyType ? eq('key_type', keyType) : undefined,
        );
        const rows = await tables.usage.table.query().where(where).toArray();
        return rows.map((row) => rowToUsage(row as Record<string, unknown>));
      },
      countSince: (accountId, since, keyId) =>
        tables.usage.table.countRows(
          and(eq('account_id', accountId), gte('at', since), ne('status', 429), keyId ? eq('key_id', keyId) : undefined),
        ),
    };
  }

  private jobItemStore(): JobItemStore {
    const table = this.tables.jobItems;
    return {
      append: (items) =>
        items.length === 0
          ? Promise.resolve()
          : table.append(
              items.map((item) => ({
                account_id: item.accountId,
                job_id: item.jobId,
                idx: item.index,
                success: item.success,
                document_id: item.documentId,
                error: item.error,
                at: item.at,
              })),
            ),
      list: async (accountId, jobId) => {
        const rows = await table.table.query().where(and(eq('account_id', accountId), eq('job_id', jobId))).toArray();
        return rows
          .map((row) => {
            const r = row as Row;
            return {
              accountId: str(r, 'account_id'),
              jobId: str(r, 'job_id'),
              index: num(r, 'idx'),
              success: r.success === true,
              documentId: typeof r.document_id === 'string' ? r.document_id : null,
              error: typeof r.error === 'string' ? r.error : null,
              at: num(r, 'at'),
            };
          })
          .sort((a, b) => a.index - b.index);
      },
    };
  }

  async purge(tenantIds: readonly string[]): Promise<void> {
    const where = inList('account_id', tenantIds);
    const owned = [
      this.tables.memories,
      this.tables.chunks,
      this.tables.pending,
      this.tables.jobs,
      this.tables.entities,
      this.tables.entityContributions,
      this.tables.facts,
      this.tables.edges,
      this.tables.extractionStatus,
      this.tables.usage,
      this.tables.jobItems,
      this.tables.watches,
    ];
    for (const writer of owned) await writer.exclusive((table) => table.delete(where));
  }

  memories(accountId: string): MemoryStore {
    return gated(new LanceMemoryStore(accountId, this.tables, this.vectorSpace.modelId, this.vectorSearches, this.rowCache, this.pendingPassages), this.gate, ['insert', 'replace', 'delete', 'putMany']);
  }

  knowledge(accountId: string): KnowledgeStore {
    return gated(new LanceKnowledgeStore(accountId, this.tables), this.gate, ['write']);
  }

  totalMemories(): Promise<number> {
    return this.tables.memories.table.countRows();
  }

  commitLoad(): CommitLoad {
    const load = { commits: 0, rows: 0, ms: 0 };
    for (const writer of Object.values(this.tables) as TableWriter[]) {
      load.commits += writer.commits.count;
      load.rows += writer.commits.rows;
      load.ms += writer.commits.ms;
    }
    return load;
  }

  vectorSearchLoad(): VectorSearchLoad {
    return { ...this.vectorSearches.counts };
  }

  /**
   * Commits before the search tables are compacted: fewer while searches read the passages not yet indexed
   * from LanceDB, more while they compare them in the process (PendingPassages; past its bound it stops).
   */
  private searchCompactionCount(): number {
    return this.pendingPassages?.servesVectors() ? SERVED_COMPACT_SEARCH_TABLES_EVERY : DEFAULT_COMPACT_SEARCH_TABLES_EVERY;
  }

  hasVectorIndex(): boolean {
    return this.vectorPartitions !== null;
  }

  /** Compacts one table; the passages table tells PendingPassages which rows it indexed. */
  private async optimize(writer: TableWriter): Promise<lancedb.OptimizeStats> {
    const pending = writer === this.tables.chunks ? this.pendingPassages : null;
    if (!pending) return optimizeTable(writer);
    const token = pending.compactionStarted();
    const stats = await optimizeTable(writer);
    pending.compactionEnded(token);
    return stats;
  }

  /** Commits to one table, not to both: a save commits to each, and it is each table's fragments a search reads. */
  private pendingSearchCommits(): number {
    return Math.max(this.searchTableCommits.memories, this.searchTableCommits.chunks);
  }

  searchTablesLoad(): SearchTablesLoad {
    return {
      pendingCommits: this.pendingSearchCommits(),
      compactions: this.searchCompactions.count,
      compactionMs: this.searchCompactions.ms,
      vectorIndexParts: this.vectorIndexParts,
      pendingPassages: this.pendingPassages?.servesKeywords() ? this.pendingPassages.size : null,
    };
  }

  private searchTablesCompactOnTheirOwn(): boolean {
    return (this.options.compactSearchTablesEvery ?? DEFAULT_COMPACT_SEARCH_TABLES_EVERY) > 0;
  }

  /**
   * Counts a commit to a table other than the search tables; past the threshold, runs the full pass in the
   * background once the last one has rested enough (never twice at once).
   */
  noteWrite(): void {
    if (this.closed) return;
    this.writesSinceMaintenance += 1;
    this.maintenance.note();
  }

  /**
   * Counts a commit to a search table; past the threshold, compacts those tables in the background. It
   * counts towards the full pass only when the search tables have no compaction of their own: otherwise
   * a save's two commits would start a pass over every table for fragments that compaction clears anyway.
   */
  noteSearchTableCommit(name: 'memories' | 'chunks'): void {
    if (this.closed) return;
    this.searchTableCommits[name] += 1;
    this.searchCompaction.note();
    if (!this.searchTablesCompactOnTheirOwn()) this.noteWrite();
  }

  useLeases(leases: Leases): void {
    this.leases = leases;
  }

  maintain(options: { readonly searchTables?: boolean } = {}): Promise<MaintenanceReport> {
    const searchTables = options.searchTables ?? true;
    // One maintenance pass at a time; a second caller shares the running one when it covers what the caller
    // asks for, and otherwise runs after it.
    if (this.maintaining) {
      if (this.maintainingSearchTables || !searchTables) return this.maintaining;
      return this.maintaining.catch(() => undefined).then(() => this.maintain(options));
    }
    this.maintainingSearchTables = searchTables;
    const pass = this.leasedMaintenance(searchTables).finally(() => {
      this.maintaining = null;
      // A compaction of the search tables declines while a pass runs: commits it left pending start it now.
      if (!searchTables) this.searchCompaction.note();
    });
    this.maintaining = pass;
    return pass;
  }

  compactSearchTables(): Promise<SearchCompactionReport | null> {
    // One at a time; a second caller shares the running one.
    this.compactingSearch ??= this.runSearchCompaction().finally(() => {
      this.compactingSearch = null;
    });
    return this.compactingSearch;
  }

  private async runSearchCompaction(): Promise<SearchCompactionReport | null> {
    if (this.closed || this.maintaining || this.backingUp) return null;
    const claim = this.leases ? await this.leases.claim('maintenance') : null;
    if (this.leases && !claim) return null;
    try {
      const started = Date.now();
      const names = (['memories', 'chunks'] as const).filter((name) => this.searchTableCommits[name] > 0);
      let compactedFragments = 0;
      let prunedVersions = 0;
      for (const name of names) {
        // Commits from here on leave fragments this compaction may not see: they count for the next one.
        this.searchTableCommits[name] = 0;
        const stats = await this.optimize(this.tables[name]);
        compactedFragments += stats.compaction.fragmentsRemoved;
        prunedVersions += stats.prune.oldVersionsRemoved;
      }
      // A compaction that found new passages added a part to the vector index (status shows the parts).
      if (names.includes('chunks') && this.vectorIndexParts !== null) await this.readVectorIndexParts();
      // Table names as created (reading a table's name from its handle while a write holds the handle fails).
      const tableName = { memories: 'memories', chunks: chunksTableName(this.vectorSpace.modelId, this.vectorSpace.dimension) };
      const durationMs = Date.now() - started;
      this.searchCompactions.count += 1;
      this.searchCompactions.ms += durationMs;
      return { tables: names.map((name) => tableName[name]), compactedFragments, prunedVersions, durationMs };
    } finally {
      claim?.stop();
    }
  }

  backup(targetDir: string): Promise<StoreSnapshot> {
    // One backup at a time; each waits for the maintenance already running, and holds off the next one.
    const run = this.backups.then(async () => {
      const running = this.maintaining;
      let done!: () => void;
      this.backingUp = new Promise<void>((resolve) => (done = resolve));
      try {
        await running?.catch(() => undefined);
        // A compaction of the search tables writes outside the writers too; none starts while backingUp is set.
        await this.compactingSearch?.catch(() => undefined);
        return await this.gate.exclusive(() => backupStore(this.uri, targetDir, Object.values(this.tables) as TableWriter[]));
      } finally {
        this.backingUp = null;
        done();
      }
    });
    this.backups = run.catch(() => undefined);
    return run;
  }

  /** With several daemons on one store, one of them maintains it at a time; the others skip their pass. */
  private async leasedMaintenance(searchTables: boolean): Promise<MaintenanceReport> {
    if (!this.leases) return this.runMaintenance(searchTables);
    const claim = await this.leases.claim('maintenance');
    if (!claim) {
      this.writesSinceMaintenance = 0;
      // The daemon that maintains may have built or trained the index again: probe as many partitions as it has.
      await this.refreshVectorPartitions();
      return { tables: 0, compactedFragments: 0, prunedVersions: 0, vectorIndex: 'skipped (another daemon maintains)', scalarIndexes: 0, orphanPassages: 0, durationMs: 0 };
    }
    try {
      return await this.runMaintenance(searchTables);
    } finally {
      claim.stop();
    }
  }

  /** @param searchTables whether the pass compacts the memories and passages tables too (index builds always run). */
  private async runMaintenance(searchTables: boolean): Promise<MaintenanceReport> {
    await this.backingUp?.catch(() => undefined);
    // A compaction of the search tables in progress finishes first (both optimize the same tables); none
    // starts while this pass runs. Awaited after the backup, never before: a backup waits for this pass.
    await this.compactingSearch?.catch(() => undefined);
    const started = Date.now();
    this.writesSinceMaintenance = 0;
    let compactedFragments = 0;
    let prunedVersions = 0;
    let orphanPassages = 0;
    if (!this.orphansSwept) {
      // With no save in flight, so no passages whose memory row is still being committed.
      orphanPassages = await this.gate.exclusive(() => this.deleteOrphanPassages());
      this.orphansSwept = true;
    }
    const writers = (Object.entries(this.tables) as [keyof Tables, TableWriter][])
      .filter(([name]) => searchTables || (name !== 'memories' && name !== 'chunks'))
      .map(([, writer]) => writer);
    if (searchTables) {
      this.searchTableCommits.memories = 0;
      this.searchTableCommits.chunks = 0;
    }
    for (const writer of writers) {
      const stats = await this.optimize(writer);
      compactedFragments += stats.compaction.fragmentsRemoved;
      prunedVersions += stats.prune.oldVersionsRemoved;
    }
    // The scalar indexes first: training the vector index again can fail (a commit conflict with another
    // writer), which leaves the old index in place and fails the pass, but not before the rest is done.
    const scalarIndexes = await this.ensureScalarIndexes();
    const vectorIndex = await this.ensureVectorIndex();
    return {
      tables: writers.length,
      compactedFragments,
      prunedVersions,
      vectorIndex,
      scalarIndexes,
      orphanPassages,
      durationMs: Date.now() - started,
    };
  }

  /** Deletes passages whose memory does not exist; returns how many. */
  private async deleteOrphanPassages(): Promise<number> {
    const key = (account: unknown, id: unknown) => `${String(account)}\u0000${String(id)}`;
    const [memoryRows, chunkRows] = await Promise.all([
      this.tables.memories.table.query().select(['account_id', 'id']).toArrow(),
      this.tables.chunks.table.query().select(['account_id', 'memory_id']).toArrow(),
    ]);
    const existing = new Set<string>();
    for (const batch of memoryRows.batches) {
      const accounts = batch.getChild('account_id');
      const ids = batch.getChild('id');
      for (let i = 0; i < batch.numRows; i++) existing.add(key(accounts?.get(i), ids?.get(i)));
    }
    const orphans = new Map<string, Set<string>>();
    let count = 0;
    for (const batch of chunkRows.batches) {
      const accounts = batch.getChild('account_id');
      const ids = batch.getChild('memory_id');
      for (let i = 0; i < batch.numRows; i++) {
        const account = String(accounts?.get(i));
        const id = String(ids?.get(i));
        if (existing.has(key(account, id))) continue;
        const set = orphans.get(account) ?? new Set<string>();
        orphans.set(account, set);
        set.add(id);
        count += 1;
      }
    }
    for (const [account, ids] of orphans) {
      const list = [...ids];
      for (let i = 0; i < list.length; i += 500) {
        const where = and(eq('account_id', account), inList('memory_id', list.slice(i, i + 500)));
        await this.tables.chunks.exclusive((table) => table.delete(where));
      }
    }
    return count;
  }

  /** Creates the missing scalar indexes of tables past SCALAR_INDEX_MIN_ROWS; returns how many exist. */
  private async ensureScalarIndexes(): Promise<number> {
    let count = 0;
    for (const name of ['memories', 'chunks'] as const) {
      const table = this.tables[name].table;
      const existing = new Set((await table.listIndices()).flatMap((index) => index.columns));
      const wanted = SCALAR_INDEXES[name];
      if (wanted.every(([column]) => existing.has(column))) {
        count += wanted.length;
        continue;
      }
      if ((await table.countRows()) < (this.options.scalarIndexMinRows ?? SCALAR_INDEX_MIN_ROWS)) continue;
      for (const [column, kind] of wanted) {
        if (!existing.has(column)) {
          const config = kind === 'btree' ? lancedb.Index.btree() : kind === 'bitmap' ? lancedb.Index.bitmap() : lancedb.Index.labelList();
          await table.createIndex(column, { config });
        }
        count += 1;
      }
    }
    return count;
  }

  /** The vector index as maintenance left it (built, kept, or trained again as one part past its cap). */
  private async ensureVectorIndex(): Promise<string> {
    const state = await maintainVectorIndex(this.tables.chunks.table, {
      minRows: this.options.vectorIndexMinRows ?? VECTOR_INDEX_MIN_ROWS,
      maxParts: this.options.vectorIndexMaxParts ?? VECTOR_INDEX_MAX_PARTS,
    });
    this.vectorPartitions = state.partitions;
    this.vectorIndexParts = state.parts;
    return state.report;
  }

  /** Reads the partitions of the vector index another daemon (or an earlier run) may have built. */
  async refreshVectorPartitions(): Promise<void> {
    const stats = await vectorIndexStats(this.tables.chunks.table);
    this.vectorPartitions = stats ? vectorIndexPartitions(stats.rows) : null;
    this.vectorIndexParts = stats ? stats.parts : null;
  }

  /** The parts alone, for status: a failed read leaves the last figure (it informs, nothing depends on it). */
  private async readVectorIndexParts(): Promise<void> {
    const stats = await vectorIndexStats(this.tables.chunks.table).catch(() => undefined);
    if (stats !== undefined) this.vectorIndexParts = stats ? stats.parts : null;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.maintenance.close();
    await this.searchCompaction.close();
    await this.compactingSearch?.catch(() => undefined);
    await this.maintaining?.catch(() => undefined);
    await Promise.all((Object.values(this.tables) as TableWriter[]).map((writer) => writer.exclusive(async () => undefined)));
    this.db.close();
  }
}

/** The longest text every one of `texts` starts with. */
function commonPrefix(texts: readonly string[]): string {
  let prefix = texts[0] ?? '';
  for (const text of texts) {
    let at = 0;
    while (at < prefix.length && at < text.length && prefix[at] === text[at]) at++;
    prefix = prefix.slice(0, at);
  }
  return prefix;
}
