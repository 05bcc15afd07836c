import { CLIENT_DEFAULTS, CONFIG_ENV_NAMES, type ClientConfig } from './client-defaults.js';
import type { LoadConfigOptions } from './load-config.js';
import { resolvePaths, type MemPaths } from './paths.js';
import { readConfigFile } from './read-config-file.js';

/** What a CLI command needs of the configuration to reach the daemon. */
export interface ClientSettings {
  readonly config: ClientConfig;
  readonly paths: MemPaths;
}

/**
 * The client settings, as loadConfig would give them. When nothing sets any config key (no config file or
 * an empty one, no config environment variable, no flag) every key has its default, so the defaults are
 * answered from the table the build evaluated (client-defaults.ts) without loading zod; otherwise
 * loadConfig checks every value set, and its errors are the same as before.
 */
export async function loadClientSettings(options: LoadConfigOptions = {}): Promise<ClientSettings> {
  const env = options.env ?? process.env;
  const paths = resolvePaths(env);
  const nothingSet =
    Object.keys(readConfigFile(paths.configFile)).length === 0 &&
    !CONFIG_ENV_NAMES.some((name) => env[name] !== undefined && env[name] !== '') &&
    !Object.values(options.flags ?? {}).some((value) => value !== undefined);
  if (nothingSet) return { config: CLIENT_DEFAULTS, paths };
  const { loadConfig } = await import('./load-config.js');
  return loadConfig(options);
}
