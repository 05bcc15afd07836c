import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { LoadedConfig } from '../config/load-config.js';

const RunFileSchema = z.object({ pid: z.number(), url: z.string(), version: z.string(), startedAt: z.string() });
export type RunFileInfo = z.infer<typeof RunFileSchema>;

export function readRunFile(path: string): RunFileInfo | null {
  try {
    const parsed = RunFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
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
export function resolveDaemonUrl(loaded: LoadedConfig): { url: string; source: 'config' | 'run-file' | 'default' } {
  const configured = loaded.config['client.url'];
  if (configured) return { url: configured.replace(/\/+$/, ''), source: 'config' };
  const run = readRunFile(loaded.paths.runFile);
  if (run && isAlive(run.pid)) return { url: run.url, source: 'run-file' };
  return { url: `http://127.0.0.1:${loaded.config['server.port']}`, source: 'default' };
}
