import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * glibc malloc settings for the daemon process. LanceDB's native code (Rust, Arrow) allocates large
 * short-lived buffers from many threads; with glibc's defaults they stay in per-thread arenas after they
 * are freed, and the daemon's RSS climbs to ~1 GB at 100k memories (bench/README.md, "Memory"). Serving
 * allocations of 128 KiB and more with mmap hands them back to the OS when freed, and two arenas bound
 * the fragmentation: measured on 1,000 saves at 100k memories, RSS 958 MB -> 533 MB, latency unchanged.
 * Other platforms and allocators (musl, macOS, Windows) ignore these variables.
 */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_ARENA_MAX: '2',
};

/** Marks a process started with the settings, so it never starts itself again. */
const MARK = 'MEM_ALLOCATOR_SET';

/** The variables of ALLOCATOR_ENV the environment lacks (a user's own value always wins). */
export function allocatorEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (process.platform !== 'linux') return {};
  return Object.fromEntries(Object.entries(ALLOCATOR_ENV).filter(([name]) => env[name] === undefined));
}

/**
 * glibc reads its settings once, when the process starts, so a foreground `mem serve` started without
 * them runs itself again as a child with them (stdio shared, signals passed on, its exit code returned).
 * Returns null when this process already has them (or is that child, or not on Linux).
 */
export function rerunWithAllocatorSettings(): Promise<number> | null {
  const missing = allocatorEnv();
  if (process.env[MARK] === '1' || Object.keys(missing).length === 0) return null;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, ...missing, [MARK]: '1' },
  });
  // Ctrl-C reaches both processes (one process group); the daemon's shutdown ignores a repeat.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of signals) process.on(signal, forward);
  return new Promise((resolve) => {
    child.once('error', () => resolve(1));
    child.once('exit', (code, signal) => {
      for (const name of signals) process.off(name, forward);
      resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
    });
  });
}
