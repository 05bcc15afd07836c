import { readFileSync } from 'node:fs';
import type { LoadedConfig } from '../config/load-config.js';

/** What the CLI reads of the run file a daemon writes in its state dir (daemon/main.ts `RunFile`). */
export interface RunFileInfo {
  readonly pid: number;
  readonly url: string;
  readonly version: string;
  readonly startedAt: string;
}

/**
 * The run file's fields, checked by hand: every command that talks to the daemon reads this file, and zod
 * would be loaded for these four fields alone (bench/README.md, "CLI"). A file that is not one is no daemon.
 */
export function readRunFile(path: string): RunFileInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { pid, url, version, startedAt } = value as Record<string, unknown>;
  if (typeof pid !== 'number' || !Number.isFinite(pid) || typeof url !== 'string' || typeof version !== 'string' || typeof startedAt !== 'string') return null;
  return { pid, url, version, startedAt };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Where the CLI finds the daemon: `MEM_HOST` / config `client.url`, else the run file a live local daemon
 * wrote in the state dir, else http://127.0.0.1:<server.port>.
 */
export function resolveDaemonUrl(loaded: Pick<LoadedConfig, 'paths'> & { readonly config: Pick<LoadedConfig['config'], 'client.url' | 'server.port'> }): { url: string; source: 'config' | 'run-file' | 'default' } {
  const configured = loaded.config['client.url'];
  if (configured) return { url: configured.replace(/\/+$/, ''), source: 'config' };
  const run = readRunFile(loaded.paths.runFile);
  if (run && isAlive(run.pid)) return { url: run.url, source: 'run-file' };
  return { url: `http://127.0.0.1:${loaded.config['server.port']}`, source: 'default' };
}
