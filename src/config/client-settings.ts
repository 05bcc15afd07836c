import { checkedValue } from './check-value.js';
import { CLIENT_DEFAULTS, CONFIG_ENV, type ClientConfig } from './client-defaults.js';
import type { LoadConfigOptions } from './load-config.js';
import { resolvePaths, type MemPaths } from './paths.js';
import { readConfigFile } from './read-config-file.js';
import type { ConfigKey } from './schema.js';
import { VALUE_CHECKS } from './value-checks.js';

/** What a CLI command needs of the configuration to reach the daemon. */
export interface ClientSettings {
  readonly config: ClientConfig;
  readonly paths: MemPaths;
}

/**
 * The client settings, as loadConfig would give them, without loading zod when it can: every value the
 * config file, the environment or a flag sets (of any key, since loadConfig refuses a config with any bad
 * value) is checked with the plain check the build read from its schema (value-checks.ts); when one of them
 * is a value that check cannot vouch for, loadConfig decides, with its own errors.
 */
export async function loadClientSettings(options: LoadConfigOptions = {}): Promise<ClientSettings> {
  const env = options.env ?? process.env;
  const paths = resolvePaths(env);
  const config = checkedClientConfig(readConfigFile(paths.configFile), env, options.flags ?? {});
  if (config) return { config, paths };
  const { loadConfig } = await import('./load-config.js');
  return loadConfig(options);
}

/** The client keys with defaults < file < env < flags, or undefined when a value set is not certainly valid. */
function checkedClientConfig(file: Record<string, unknown>, env: NodeJS.ProcessEnv, flags: Partial<Record<ConfigKey, unknown>>): ClientConfig | undefined {
  const config: Record<string, unknown> = { ...CLIENT_DEFAULTS };
  for (const key of Object.keys(VALUE_CHECKS) as ConfigKey[]) {
    const envName = CONFIG_ENV[key];
    const envValue = envName === undefined || env[envName] === '' ? undefined : env[envName];
    for (const raw of [file[key], envValue, flags[key]]) {
      if (raw === undefined) continue;
      const checked = checkedValue(VALUE_CHECKS[key], raw);
      if (!checked) return undefined;
      if (Object.hasOwn(CLIENT_DEFAULTS, key)) config[key] = checked.value;
    }
  }
  return config as ClientConfig;
}
