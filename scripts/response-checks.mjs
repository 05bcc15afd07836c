/**
 * Build-time checks of the daemon's answers, generated from the API contract's zod schemas, so that a CLI
 * command can validate its response without loading zod and building the contract (together about half of
 * a short command's start, bench/README.md "CLI").
 *
 * Each response schema becomes a JSON Schema (zod's own `z.toJSONSchema`, output side) compiled by Ajv into
 * standalone code. A check says only "zod would return this value unchanged": in the output JSON Schema
 * every object is closed (`additionalProperties: false`, where zod would strip an unknown key) and every
 * field with a default is required (where zod would fill it in), so a value that passes is exactly what
 * `schema.parse` returns. Anything else (an unknown key from a newer daemon, a missing field, a wrong type)
 * fails the check, and the client then parses it with zod as before: same result, same error message.
 *
 * A schema whose parse can change or reject a value in ways JSON Schema cannot say (transforms, refinements,
 * trimming, catch) gets no check at all: its responses always go through zod.
 */
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { z } from 'zod';

/** The contract's exports the client parses responses with: `...Response` and the streamed answer's delta. */
export function responseSchemaNames(contract) {
  return Object.keys(contract)
    .filter((name) => (name.endsWith('Response') || name === 'AskDeltaEvent') && contract[name] instanceof z.ZodType)
    .sort();
}

/** Why a schema cannot be checked without zod, or null when it can. */
export function uncheckable(schema, seen = new Set()) {
  if (seen.has(schema)) return null;
  seen.add(schema);
  const def = schema._zod.def;
  if (['transform', 'pipe', 'catch', 'prefault', 'custom', 'lazy', 'promise', 'function'].includes(def.type)) return def.type;
  for (const check of def.checks ?? []) {
    const kind = check._zod.def.check;
    if (kind === 'custom' || kind === 'overwrite') return `a ${kind} check`;
    // zod measures a string in UTF-16 units, Ajv in code points: they disagree on emoji near a limit.
    if (def.type === 'string' && /^(min_length|max_length|length_equals)$/.test(kind)) return 'a string length check';
    // A format zod checks with code (url, base64...) or a flagged regex has no faithful JSON Schema pattern.
    if (kind === 'string_format') {
      const { pattern, format } = check._zod.def;
      if (!(pattern instanceof RegExp) || pattern.flags.replace(/[gy]/g, '') !== '') return `the ${format} format`;
    }
  }
  const children = [
    def.innerType,
    def.element,
    def.keyType,
    def.valueType,
    def.catchall,
    def.rest,
    def.left,
    def.right,
    ...(def.options ?? []),
    ...(def.items ?? []),
    ...Object.values(def.shape ?? {}),
  ];
  for (const child of children) {
    if (child instanceof z.ZodType) {
      const reason = uncheckable(child, seen);
      if (reason) return reason;
    }
  }
  return null;
}

/**
 * The standalone ES module source of each checkable response schema: `export const check = (value) => boolean`.
 * Ajv's options follow zod's semantics: patterns without the `u` flag, as zod runs them; formats are not
 * checked by Ajv (zod's JSON Schema carries each format's pattern).
 */
export function responseCheckSources(contract) {
  const sources = new Map();
  for (const name of responseSchemaNames(contract)) {
    const schema = contract[name];
    if (uncheckable(schema)) continue;
    const jsonSchema = z.toJSONSchema(schema, { io: 'output', target: 'draft-7' });
    delete jsonSchema.$schema;
    const ajv = new Ajv({
      code: { source: true, esm: true, optimize: true },
      strict: false,
      validateFormats: false,
      unicodeRegExp: false,
      allErrors: false,
      messages: false,
    });
    ajv.addSchema(jsonSchema, name);
    sources.set(name, standaloneCode(ajv, { check: name }));
  }
  return sources;
}
