/** What `mem config list|get|set|unset` do (loaded when one runs: the config schema is zod). */
import type { Command } from 'commander';
import { isAlive, readRunFile } from '../../client/discovery.js';
import { parseConfigValue, setConfigValue, unsetConfigValue } from '../../config/config-file.js';
import { readConfigFile, type ConfigOrigin, type LoadedConfig } from '../../config/load-config.js';
import { resolvePaths } from '../../config/paths.js';
import { CONFIG_KEYS, CONFIG_SCHEMA, isConfigKey, type ConfigKey } from '../../config/schema.js';
import { MemError } from '../../errors.js';
import { configFor, globals, outputFor } from '../context.js';
import { suggestionText } from '../did-you-mean.js';
import { style, table } from '../output.js';

/** One key as `mem config list|get --json` shows it. */
interface ConfigEntry {
  readonly key: ConfigKey;
  readonly value: unknown;
  readonly origin: ConfigOrigin;
  readonly default: unknown;
  readonly env: string | null;
  readonly requiresRestart: boolean;
  readonly description: string;
}

function unknownKey(key: string): MemError {
  return new MemError('NOT_FOUND', `Unknown config key "${key}".${suggestionText(key, CONFIG_KEYS)}`, {
    hint: 'See every key with `mem config list`.',
    details: { key },
  });
}

function requireKey(key: string): ConfigKey {
  if (!isConfigKey(key)) throw unknownKey(key);
  return key;
}

function envNameOf(key: ConfigKey): string | null {
  const spec = CONFIG_SCHEMA[key];
  return 'env' in spec && spec.env ? spec.env : null;
}

function entryOf(loaded: LoadedConfig, key: ConfigKey): ConfigEntry {
  const spec = CONFIG_SCHEMA[key];
  return {
    key,
    value: shownValue(key, loaded.config[key]),
    origin: loaded.origins[key],
    default: spec.default,
    env: envNameOf(key),
    requiresRestart: spec.requiresRestart,
    description: spec.description,
  };
}

/** Secret keys show only whether they are set. */
function shownValue(key: ConfigKey, value: unknown): unknown {
  if (!('secret' in CONFIG_SCHEMA[key])) return value;
  const empty = value === '' || value === undefined || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
  return empty ? value : '(set, not shown)';
}

function displayValue(value: unknown): string {
  if (value === '') return style.dim('(empty)');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Who would still win over the config file for this key: an environment variable (load-config ignores an
 * empty one) or, for client.url, the global --host flag. Said after a set, because the value just written
 * would otherwise silently have no effect.
 */
function overriddenBy(key: ConfigKey, command: Command): { source: string; value: string } | null {
  const envName = envNameOf(key);
  const envValue = envName ? process.env[envName] : undefined;
  if (envName && envValue !== undefined && envValue !== '') return { source: envName, value: String(shownValue(key, envValue)) };
  const host = globals(command).host;
  if (key === 'client.url' && host) return { source: '--host', value: host };
  return null;
}

/** Whether a daemon of this MEM_HOME runs now (its run file names a live pid): it needs a restart to see restart-only keys. */
function daemonRunning(): boolean {
  const run = readRunFile(resolvePaths().runFile);
  return Boolean(run && isAlive(run.pid));
}

function notesAfterChange(key: ConfigKey, command: Command): { overriddenBy: string | null; restartNeeded: boolean; notes: string[] } {
  const notes: string[] = [];
  const override = overriddenBy(key, command);
  if (override) {
    notes.push(
      style.yellow(`Note: ${override.source}=${override.value} overrides the config file, so ${key} stays ${override.value} while it is set.`),
    );
  }
  const restartNeeded = CONFIG_SCHEMA[key].requiresRestart && daemonRunning();
  if (restartNeeded) notes.push(`The daemon reads ${key} when it starts: restart it with \`mem daemon stop && mem daemon start\`.`);
  else if (CONFIG_SCHEMA[key].requiresRestart) notes.push(style.dim(`The daemon reads ${key} when it starts (none is running now).`));
  return { overriddenBy: override?.source ?? null, restartNeeded, notes };
}

export async function listConfig(_options: unknown, command: Command): Promise<void> {
  const output = outputFor(command);
  const loaded = await configFor(command);
  const entries = CONFIG_KEYS.map((key) => entryOf(loaded, key));
  output.result({ file: loaded.paths.configFile, keys: entries }, () =>
    [
      table(
        entries.map((entry) => [
          entry.key,
          displayValue(entry.value),
          entry.origin === 'default' ? style.dim(entry.origin) : entry.origin === 'env' ? `env ${style.dim(entry.env ?? '')}` : entry.origin,
        ]),
        ['KEY', 'VALUE', 'ORIGIN'],
      ),
      style.dim(`Config file: ${loaded.paths.configFile}`),
    ].join('\n'),
  );
}

export async function getConfig(key: string, _options: unknown, command: Command): Promise<void> {
  const known = requireKey(key);
  const output = outputFor(command);
  const entry = entryOf(await configFor(command), known);
  output.result(entry, () => (typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value)));
}

export function setConfig(key: string, raw: string, _options: unknown, command: Command): void {
  const known = requireKey(key);
  const output = outputFor(command);
  const value = parseConfigValue(known, raw);
  const file = resolvePaths().configFile;
  const { previous } = setConfigValue(file, known, value);
  const { notes, ...after } = notesAfterChange(known, command);
  output.result(
    {
      success: true,
      key: known,
      value: shownValue(known, value),
      ...(previous !== undefined ? { previous: shownValue(known, previous) } : {}),
      file,
      requiresRestart: CONFIG_SCHEMA[known].requiresRestart,
      ...after,
    },
    () => `${style.green('Set')} ${known} = ${displayValue(shownValue(known, value))} in ${file}`,
  );
  notes.forEach((note) => output.info(note));
}

export function unsetConfig(key: string, _options: unknown, command: Command): void {
  const output = outputFor(command);
  const file = resolvePaths().configFile;
  // A key the schema no longer knows can still be removed from the file (a typo, an old version's key).
  if (!isConfigKey(key) && !Object.hasOwn(readConfigFile(file), key)) throw unknownKey(key);
  const { removed } = unsetConfigValue(file, key);
  if (!isConfigKey(key)) {
    output.result({ success: true, key, removed, file }, () => `${style.green('Removed')} the unknown key ${key} from ${file}`);
    return;
  }
  const { notes, ...after } = removed ? notesAfterChange(key, command) : { notes: [], overriddenBy: null, restartNeeded: false };
  output.result({ success: true, key, removed, file, default: CONFIG_SCHEMA[key].default, ...after }, () =>
    removed
      ? `${style.green('Removed')} ${key} from ${file} (default: ${displayValue(CONFIG_SCHEMA[key].default)})`
      : `${key} is not set in ${file}; nothing to do.`,
  );
  notes.forEach((note) => output.info(note));
}
