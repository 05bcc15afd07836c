/**
 * Limits that protect the daemon where the spec leaves sizes open: each is enforced at the HTTP edge
 * (a schema or the JSON body parser) and answered with VALIDATION_ERROR, never by a slow or stuck daemon.
 * The README's "Limits" table lists them; test/unit/docs.test.ts keeps the two in step.
 */

/** Deepest nesting of a JSON request body (objects and arrays). Parsing and validation recurse. */
export const MAX_JSON_DEPTH = 32;

/** Largest `metadata` object of a memory, as JSON text in UTF-8 bytes. */
export const MAX_METADATA_BYTES = 16_384;

/** Largest `filters` of a structured query, as JSON text in UTF-8 bytes. */
export const MAX_FILTER_BYTES = 16_384;

/** Tags per memory and characters per tag. */
export const MAX_TAGS = 100;
export const MAX_TAG_CHARS = 100;

/** Ids in one bulk delete. */
export const MAX_BULK_DELETE_IDS = 1000;

/** Bytes of JSON text a value serializes to (what the limits above count). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}
