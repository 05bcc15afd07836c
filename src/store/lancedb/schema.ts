import { Bool, Field, FixedSizeList, Float32, Float64, List, Schema, Utf8 } from 'apache-arrow';

/**
 * Explicit Arrow schemas (LanceDB would otherwise infer Float64 for everything numeric and Struct for
 * objects). Times are epoch milliseconds in Float64 (exact to 2^53); JSON objects are Utf8 columns.
 * Any change here needs a migration in lancedb-store.ts (see README.md beside this file).
 */
const str = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
const num = (name: string, nullable = false) => new Field(name, new Float64(), nullable);
const bool = (name: string) => new Field(name, new Bool(), false);
const strList = (name: string) => new Field(name, new List(new Field('item', new Utf8(), true)), false);

export const SCHEMA_VERSION = 1;

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
