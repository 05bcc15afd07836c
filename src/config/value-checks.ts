import { bool, CONFIG_KEYS, CONFIG_SCHEMA, type ConfigKey } from './schema.js';
import type { ValueCheck } from './check-value.js';

/*
 * Evaluated when the CLI is bundled (scripts/bundle-cli.mjs): each config key's zod schema, read once at
 * build time as the plain check it amounts to, so that a command whose config file or environment sets a
 * key checks it without loading zod (client-settings.ts, check-value.ts). A schema read here as anything but
 * these few shapes is left to zod ('zod').
 */

interface CheckDef {
  readonly check?: string;
  readonly format?: string;
  readonly value?: number;
  readonly inclusive?: boolean;
  readonly minimum?: number;
}

interface SchemaDef {
  readonly type: string;
  readonly coerce?: boolean;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[];
  readonly entries?: Record<string, unknown>;
}

function checkOf(schema: unknown): ValueCheck {
  if (schema === bool) return { kind: 'bool' };
  const def = (schema as { _zod: { def: SchemaDef } })._zod.def;
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  if (def.type === 'number') {
    let result: ValueCheck & { kind: 'number' } = { kind: 'number', coerce: def.coerce === true, int: false };
    for (const check of checks) {
      if (check.check === 'number_format' && check.format === 'safeint') result = { ...result, int: true };
      else if (check.check === 'greater_than' && typeof check.value === 'number') result = { ...result, min: check.value, minInclusive: check.inclusive === true };
      else if (check.check === 'less_than' && typeof check.value === 'number') result = { ...result, max: check.value, maxInclusive: check.inclusive === true };
      else return { kind: 'zod' };
    }
    return result;
  }
  if (def.type === 'string' && !def.coerce) {
    let result: ValueCheck & { kind: 'string' } = { kind: 'string', minLength: 0, url: false };
    for (const check of checks) {
      if (check.check === 'min_length' && typeof check.minimum === 'number') result = { ...result, minLength: check.minimum };
      else if (check.check === 'string_format' && check.format === 'url' && Object.keys(check).every((name) => ['type', 'format', 'check', 'abort'].includes(name))) result = { ...result, url: true };
      else return { kind: 'zod' };
    }
    return result;
  }
  if (def.type === 'enum' && checks.length === 0 && def.entries && Object.values(def.entries).every((value) => typeof value === 'string')) {
    return { kind: 'enum', values: Object.values(def.entries) as string[] };
  }
  return { kind: 'zod' };
}

/** The check of each config key's value. */
export const VALUE_CHECKS: Readonly<Record<ConfigKey, ValueCheck>> = Object.fromEntries(CONFIG_KEYS.map((key) => [key, checkOf(CONFIG_SCHEMA[key].schema)])) as Record<ConfigKey, ValueCheck>;
