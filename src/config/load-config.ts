import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { MemError } from '../errors.js';
import { CONFIG_KEYS, CONFIG_SCHEMA, type ConfigKey, type MemConfig } from './schema.js';
import { defaultStorageUri, resolvePaths, type MemPaths } from './paths.js';

export type ConfigOrigin = 'default' | 'file' | 'env' | 'flag';

export interface LoadedConfig {
  readonly config: MemConfig;
  readonly origins: Record<ConfigKey, ConfigOrigin>;
  readonly paths: MemPaths;
  /** storage.uri with its default filled in. */
  readonly storageUri: string;
}

export interface LoadConfigOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Values from CLI flags, highest precedence. */
  readonly flags?: Partial<Record<ConfigKey, unknown>>;
}

/** The config file is a flat JSON object of dotted keys, e.g. {"embedding.provider": "ollama"}. */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    if (code === 'ENOTDIR') {
      throw new MemError('VALIDATION_ERROR', `Cannot read the config file ${path}: part of that path is a file, not a directory.`, {
        hint: 'Point MEM_HOME at a directory (it is created if missing), or unset it to use the default paths.',
      });
    }
    if (code === 'EACCES' || code === 'EPERM' || code === 'EISDIR') {
      throw new MemError('VALIDATION_ERROR', `Cannot read the config file ${path} (${code}).`, {
        hint: `Make ${path} a file you can read, or delete it.`,
      });
    }
    throw error;
  }
  const parsed = z.record(z.string(), z.unknown()).safeParse(safeJson(text));
  if (!parsed.success) {
    throw new MemError('VALIDATION_ERROR', `Config file ${path} is not a JSON object.`, {
      hint: `Fix or delete ${path}.`,
    });
  }
  return parsed.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseValue(key: ConfigKey, raw: unknown, origin: string): unknown {
  const result = CONFIG_SCHEMA[key].schema.safeParse(raw);
  if (!result.success) {
    const shown = 'secret' in CONFIG_SCHEMA[key] ? '(secret value not shown)' : JSON.stringify(raw);
    throw new MemError('VALIDATION_ERROR', `Invalid value for ${key} from ${origin}: ${shown}.`, {
      hint: CONFIG_SCHEMA[key].description,
    });
  }
  return result.data;
}

export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const paths = resolvePaths(env);
  const file = readConfigFile(paths.configFile);
  const config: Record<string, unknown> = {};
  const origins = {} as Record<ConfigKey, ConfigOrigin>;
  for (const key of CONFIG_KEYS) {
    const spec = CONFIG_SCHEMA[key];
    let value: unknown = spec.default;
    let origin: ConfigOrigin = 'default';
    if (file[key] !== undefined) {
      value = parseValue(key, file[key], `config file ${paths.configFile}`);
      origin = 'file';
    }
    const envName = 'env' in spec ? spec.env : undefined;
    const envValue = envName ? env[envName] : undefined;
    if (envName && envValue !== undefined && envValue !== '') {
      value = parseValue(key, envValue, `environment variable ${envName}`);
      origin = 'env';
    }
    const flag = options.flags?.[key];
    if (flag !== undefined) {
      value = parseValue(key, flag, 'command-line flag');
      origin = 'flag';
    }
    config[key] = value;
    origins[key] = origin;
  }
  const typed = config as MemConfig;
  return {
    config: typed,
    origins,
    paths,
    storageUri: typed['storage.uri'] || defaultStorageUri(paths),
  };
}
