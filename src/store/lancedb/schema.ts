import { Bool, Field, FixedSizeList, Float32, Float64, List, Schema, Utf8 } from 'apache-arrow';

/**
 * Explicit Arrow schemas (LanceDB would otherwise infer Float64 for everything numeric and Struct for
 * objects). Times are epoch milliseconds in Float64 (exact to 2^53); JSON objects are Utf8 columns.
 * Any change here needs a migration in lancedb-store.ts (migrateSchema) and a line in README.md, "Upgrades".
 */
const str = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
const num = (name: string, nullable = false) => new Field(name, new Float64(), nullable);
const bool = (name: string) => new Field(name, new Bool(), false);
const strList = (name: string) => new Field(name, new List(new Field('item', new Utf8(), true)), false);

/**
 * 1: the first release. 2: memories.context (text that situates a memory, embedded and keyword-indexed with
 * it); added by migrateSchema in lancedb-store.ts. 3: memories.author (who wrote or said a memory), added
 * the same way. 4: an entity's contributions in rows of their own (entity_contributions) instead of one JSON
 * column of the entity's row, which held one entry per memory naming it and was read and written whole with
 * every change; the entity row keeps their tally.
 */
export const SCHEMA_VERSION = 4;

export const memoriesSchema = new Schema([
  str('id'),
  str('account_id'),
  str('title'),
  str('content'),
  str('description'),
  strList('tags'),
  str('metadata'),
  str('space_id'),
  num('created_at'),
  num('updated_at', true),
  str('content_hash'),
  bool('turbo'),
  num('size_bytes'),
  str('context'),
  str('author'),
]);

/** Vectors live in one table per embedding space, so two models' vectors can never be compared. */
export function chunksSchema(dimension: number): Schema {
  return new Schema([
    str('id'),
    str('memory_id'),
    str('account_id'),
    str('space_id'),
    strList('tags'),
    num('created_at'),
    num('seq'),
    str('text'),
    str('model'),
    new Field('vector', new FixedSizeList(dimension, new Field('item', new Float32(), true)), false),
  ]);
}

export function chunksTableName(modelId: string, dimension: number): string {
  return `chunks__${modelId.replace(/[^A-Za-z0-9]+/g, '_')}__${dimension}`;
}

export const accountsSchema = new Schema([
  str('id'),
  str('email'),
  str('name'),
  str('company'),
  str('tier'),
  num('created_at'),
  str('settings'),
  bool('is_owner'),
]);

export const apiKeysSchema = new Schema([
  str('id'),
  str('account_id'),
  str('name'),
  str('type'),
  str('hash'),
  str('last4'),
  num('created_at'),
  num('expires_at', true),
  num('last_used_at', true),
  num('rate_limit_per_hour', true),
  num('monthly_limit', true),
  bool('read_only'),
]);

export const pendingSavesSchema = new Schema([
  str('id'),
  str('account_id'),
  str('status'),
  str('document_id', true),
  str('error', true),
  str('request'),
  num('created_at'),
  num('updated_at'),
]);

export const jobsSchema = new Schema([
  str('id'),
  str('account_id'),
  str('kind'),
  str('status'),
  num('total'),
  num('completed'),
  num('failed'),
  str('error', true),
  str('payload'),
  num('created_at'),
  num('started_at', true),
  num('finished_at', true),
]);

export const metaSchema = new Schema([str('key'), str('value')]);

// ---- knowledge (knowledge-store.ts) ---------------------------------------------------------------------
// New tables need no migration: openLanceStore creates missing tables empty.

export const entitiesSchema = new Schema([
  str('id'),
  str('account_id'),
  str('name'),
  /** Lower-cased name: sortBy=name is case-insensitive. */
  str('sort_name'),
  str('type'),
  strList('aliases'),
  str('properties'),
  num('mentions'),
  num('first_seen'),
  num('last_seen'),
  strList('memory_ids'),
  strList('match_keys'),
  /** Lower-cased name and aliases, one per line: the substring search of GET /v1/entities. */
  str('search_text'),
  /** JSON: the tally of the entity's contributions (entity-tally.ts), which its fields are derived from. */
  str('tally'),
]);

/** What one memory contributed to one entity. id = `${entity_id}:${memory_id}`. */
export const entityContributionsSchema = new Schema([
  str('id'),
  str('account_id'),
  str('entity_id'),
  str('memory_id'),
  num('mentions'),
  /** The memory's createdAt. */
  num('seen_at'),
  /** Names the memory uses for the entity, the best first. */
  strList('names'),
  /** JSON object of the properties it gives. */
  str('properties'),
]);

export const factsSchema = new Schema([
  str('id'),
  str('account_id'),
  str('subject_id'),
  str('subject'),
  str('predicate'),
  str('object'),
  str('object_id', true),
  str('category'),
  str('statement'),
  num('confidence'),
  str('source_document'),
  str('source_excerpt'),
  num('extracted_at'),
  num('valid_from', true),
  num('valid_to', true),
  str('superseded_by', true),
  strList('memory_ids'),
  /** Subject and object entity ids: the entity filter of GET /v1/facts. */
  strList('entity_ids'),
  /** JSON: one entry per memory stating the fact. */
  str('supports'),
]);

export const edgesSchema = new Schema([
  str('id'),
  str('account_id'),
  str('source_id'),
  str('target_id'),
  str('relationship'),
  num('strength'),
  strList('memory_ids'),
  str('supports'),
]);

/** Extraction state per memory, in its own table so the memories schema stays as it is. id = memory id. */
export const extractionStatusSchema = new Schema([
  str('id'),
  str('account_id'),
  str('status'),
  str('error', true),
  str('model'),
  num('attempts'),
  num('updated_at'),
  num('entities'),
  num('facts'),
]);

/** One row per authenticated request (usage statistics, and the rate-limit counts after a restart). */
export const usageEventsSchema = new Schema([
  str('account_id'),
  str('key_id'),
  str('key_type'),
  str('method'),
  str('endpoint'),
  num('status'),
  num('latency_ms'),
  num('at'),
]);

/** Per-item results of ingest jobs, appended as items finish (a job resumes after the ones recorded here). */
export const jobItemsSchema = new Schema([
  str('account_id'),
  str('job_id'),
  num('idx'),
  bool('success'),
  str('document_id', true),
  str('error', true),
  num('at'),
]);

/** Watched folders (/v1/watches). Their live state (tracked files, last event) is not stored. */
export const watchesSchema = new Schema([
  str('id'),
  str('account_id'),
  str('path'),
  str('glob'),
  strList('tags'),
  str('space_id'),
  bool('keep_deleted'),
  num('created_at'),
  str('initial_job_id', true),
]);
