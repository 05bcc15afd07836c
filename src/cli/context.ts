import type { Command } from 'commander';
import type { MemClient } from '../client/http-client.js';
import type { ClientSettings } from '../config/client-settings.js';
import type { LoadedConfig } from '../config/load-config.js';
import { Output } from './output.js';

/*
 * Every command module imports this one to register itself, so what it needs at run time (the config
 * schema, the credential store, the HTTP client and the API contract with their zod schemas) is imported
 * when a command runs, not when it is registered: `mem --help`, `--version` and completions never load them.
 */

export interface GlobalOptions {
  json?: boolean;
  quiet?: boolean;
  host?: string;
  start?: boolean;
}

export function globals(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export function outputFor(command: Command): Output {
  const options = globals(command);
  return new Output({ json: Boolean(options.json), quiet: Boolean(options.quiet) });
}

function flagsOf(command: Command) {
  const options = globals(command);
  return options.host ? { 'client.url': options.host } : {};
}

export async function configFor(command: Command): Promise<LoadedConfig> {
  const { loadConfig } = await import('../config/load-config.js');
  return loadConfig({ flags: flagsOf(command) });
}

/**
 * A command (and the TUI) sends a request the busy daemon refused (429, `details.reason: "busy"`) again this
 * many times, each after its Retry-After: a person waits a few seconds rather than see an error while agents
 * keep the daemon busy. Completions (quickClientFor) answer at once or not at all.
 */
const BUSY_RETRIES = 3;

/**
 * A client for the daemon this CLI should talk to, with the stored API key. When no daemon answers and
 * `--start` (or config client.autoStart) says so, starts one in the background first.
 */
export async function clientFor(command: Command): Promise<{ client: MemClient; output: Output; loaded: ClientSettings }> {
  const options = globals(command);
  const output = outputFor(command);
  const { loadClientSettings, resolveDaemonUrl, readApiKey, MemClient } = await import('./daemon-connection.js');
  // Without zod when nothing is configured (client-settings.ts).
  const loaded: ClientSettings = await loadClientSettings({ flags: flagsOf(command) });
  let { url } = resolveDaemonUrl(loaded);
  const stored = await readApiKey(loaded.paths);
  let client = new MemClient({ baseUrl: url, apiKey: stored?.key, timeoutMs: loaded.config['client.timeoutMs'], busyRetries: BUSY_RETRIES });
  if (options.start || loaded.config['client.autoStart']) {
    const up = await client.health(1500).then(
      () => true,
      () => false,
    );
    if (!up) {
      output.info('Starting the mem daemon...');
      const { startDaemonInBackground } = await import('./daemon-process.js');
      url = (await startDaemonInBackground(await configFor(command))).url;
      const key = await readApiKey(loaded.paths);
      client = new MemClient({ baseUrl: url, apiKey: key?.key, timeoutMs: loaded.config['client.timeoutMs'], busyRetries: BUSY_RETRIES });
    }
  }
  return { client, output, loaded };
}

/**
 * A client for shell completion: the same daemon and key as clientFor, but it never starts a daemon and
 * gives up after `timeoutMs`, because a completion must answer at once or not at all.
 */
export async function quickClientFor(command: Command, timeoutMs: number): Promise<MemClient> {
  const { loadClientSettings, resolveDaemonUrl, readApiKey, MemClient } = await import('./daemon-connection.js');
  const loaded = await loadClientSettings({ flags: flagsOf(command) });
  const stored = await readApiKey(loaded.paths);
  return new MemClient({ baseUrl: resolveDaemonUrl(loaded).url, apiKey: stored?.key, timeoutMs });
}
