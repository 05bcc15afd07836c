import { MemError } from '../errors.js';
import { readConfigFile } from './read-config-file.js';
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

export { readConfigFile } from './read-config-file.js';

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
