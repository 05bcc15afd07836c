import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { allocatorEnv } from './allocator.js';
import { isAlive, readRunFile, type RunFileInfo } from '../client/discovery.js';
import { MemClient } from '../client/http-client.js';
import type { LoadedConfig } from '../config/load-config.js';
import { MemError } from '../errors.js';
import { PACKAGE_ROOT } from '../version.js';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;

async function until<T>(deadlineMs: number, probe: () => Promise<T | null> | T | null): Promise<T | null> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}

export function runningDaemon(loaded: LoadedConfig): RunFileInfo | null {
  const run = readRunFile(loaded.paths.runFile);
  return run && isAlive(run.pid) ? run : null;
}

/** `mem daemon start`: a detached `mem serve` whose output goes to the log file; waits until it answers. */
export async function startDaemonInBackground(
  loaded: LoadedConfig,
  extraArgs: readonly string[] = [],
): Promise<RunFileInfo> {
  const existing = runningDaemon(loaded);
  if (existing) return existing;
  const { paths } = loaded;
  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  rmSync(paths.runFile, { force: true });
  const out = openSync(join(paths.stateDir, 'daemon.out'), 'a', 0o600);
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'mem.js'), 'serve', ...extraArgs], {
    detached: true,
    stdio: ['ignore', out, out],
    // Set here, so `mem serve` need not start itself again with them (and its pid is the daemon's).
    env: { ...process.env, ...allocatorEnv() },
  });
  closeSync(out);
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? 1;
  });
  child.unref();
  const run = await until(START_TIMEOUT_MS, async () => {
    if (exited !== null) return null;
    const info = readRunFile(paths.runFile);
    if (!info || info.pid !== child.pid) return null;
    return new MemClient({ baseUrl: info.url }).health(1000).then(
      () => info,
      () => null,
    );
  });
  if (!run) {
    let tail = '';
    try {
      tail = readFileSync(join(paths.stateDir, 'daemon.out'), 'utf8').trim().split('\n').slice(-5).join('\n');
    } catch {
      // no output captured
    }
    throw new MemError('INTERNAL_ERROR', `The daemon did not start${exited !== null ? ` (exit code ${exited})` : ''}.`, {
      hint: tail ? `Its last output:\n${tail}` : `See ${paths.logFile}.`,
    });
  }
  return run;
}

/** Graceful stop: SIGTERM, then wait for the process to drain its queues and exit. */
export async function stopDaemon(loaded: LoadedConfig): Promise<{ pid: number } | null> {
  const run = runningDaemon(loaded);
  let pid = run?.pid;
  if (!pid) {
    try {
      pid = Number(readFileSync(loaded.paths.pidFile, 'utf8').trim());
    } catch {
      return null;
    }
    if (!pid || !isAlive(pid)) return null;
  }
  process.kill(pid, 'SIGTERM');
  const stopped = await until(STOP_TIMEOUT_MS, () => (isAlive(pid) ? null : true));
  if (!stopped) {
    throw new MemError('INTERNAL_ERROR', `The daemon (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000}s.`, {
      hint: `Look at \`mem daemon logs\`; as a last resort: kill -9 ${pid}`,
    });
  }
  return { pid };
}
