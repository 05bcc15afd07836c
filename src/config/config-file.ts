import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MemError } from '../errors.js';
import { readConfigFile } from './load-config.js';
import { CONFIG_SCHEMA, type ConfigKey } from './schema.js';

/**
 * Writing the config file (`mem config set|unset`). load-config.ts reads it; this module changes one key
 * at a time and leaves every other key, known or not, as it was. Writes go to a temporary file in the same
 * directory that is then renamed over the old one, so a reader (a daemon starting at that moment) sees the
 * old file or the new one, never half of one.
 */

/**
 * A value typed on the command line, checked with the key's schema: numbers and booleans are parsed from
 * the string (the schemas coerce), so the file stores `7400`, not `"7400"`.
 */
export function parseConfigValue(key: ConfigKey, raw: string): unknown {
  const spec = CONFIG_SCHEMA[key];
  if (raw.trim() === '') {
    throw new MemError('VALIDATION_ERROR', `An empty value is not valid for ${key}.`, {
      hint: `To go back to the default (${JSON.stringify(spec.default)}), run \`mem config unset ${key}\`.`,
    });
  }
  const result = spec.schema.safeParse(raw);
  if (!result.success) {
    // The boolean schema is a union whose own message ("Invalid input") says nothing useful.
    const reasons = typeof spec.default === 'boolean' ? 'expected true or false' : result.error.issues.map((issue) => issue.message).join('; ');
    const secret = 'secret' in spec;
    const shown = secret ? '(secret value not shown)' : JSON.stringify(raw);
    throw new MemError('VALIDATION_ERROR', `Invalid value for ${key}: ${shown}: ${reasons}.`, {
      hint: spec.description,
      details: { key, ...(secret ? {} : { value: raw }), issues: result.error.issues.map((issue) => issue.message) },
    });
  }
  return result.data;
}

/** Replaces the file with `values` (pretty JSON) atomically; creates its directory when missing. */
export function writeConfigFile(path: string, values: Readonly<Record<string, unknown>>): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let mode = 0o644;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    // a new file: the default mode
  }
  const temporary = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const text = `${JSON.stringify(values, null, 2)}\n`;
  try {
    const fd = openSync(temporary, 'wx', mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Sets one key in the file (other keys untouched); returns the value it had there, if any. */
export function setConfigValue(path: string, key: ConfigKey, value: unknown): { previous: unknown } {
  const current = readConfigFile(path);
  writeConfigFile(path, { ...current, [key]: value });
  return { previous: current[key] };
}

/** Removes one key from the file; returns whether it was there (the file is not rewritten when not). */
export function unsetConfigValue(path: string, key: string): { removed: boolean } {
  const current = readConfigFile(path);
  if (!Object.hasOwn(current, key)) return { removed: false };
  const { [key]: _removed, ...rest } = current;
  writeConfigFile(path, rest);
  return { removed: true };
}
