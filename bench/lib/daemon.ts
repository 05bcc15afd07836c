import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MemClient } from '../../src/client/http-client.js';

const execFileAsync = promisify(execFile);

/** The repository root (bench/lib/ is two levels down). Data and scorer paths resolve from here. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const COMPACT_TIMEOUT_MS = 10 * 60_000;

/**
 * Inherited variables that would point the daemon or `mem token` somewhere else than the fresh home
 * (MEM_API_KEY would even make `mem token` print a foreign key). Tuning variables such as MEM_EMBED_WORKERS
 * or MEM_LOG_LEVEL pass through on purpose, and the report records them.
 */
const ISOLATING_VARIABLES = ['MEM_HOME', 'MEM_API_KEY', 'MEM_HOST', 'MEM_PORT', 'MEM_BIND_HOST', 'MEM_STORAGE_URI', 'MEM_AUTO_START'];

export interface BenchDaemon {
  readonly url: string;
  readonly key: string;
  readonly client: MemClient;
  /** The temporary MEM_HOME (removed by stop()). */
  readonly home: string;
  /** The daemon's process id (from its run file; a new one after compact()). */
  pid(): number;
  /** Resident set size of the daemon process now, in MiB (VmRSS of /proc/<pid>/status; NaN off Linux). */
  rssMb(): number;
  /** Peak resident set size of any daemon process of this handle so far, in MiB (VmHWM). */
  peakRssMb(): number;
  /** How many periodic table-maintenance passes (compaction, vector index) have been logged so far. */
  maintenancePasses(): number;
  /**
   * Brings the tables to the state the daemon's periodic maintenance (every 5 minutes by default) leaves
   * them in: every save commits a new LanceDB fragment, and searches slow down with their number until a
   * pass compacts them. No route triggers a pass, so this restarts the daemon on the same home with
   * `maintenance.intervalMs` 1000, waits for one pass, and restarts it with the default again (same port,
   * same key). Returns the seconds it took.
   */
  compact(): Promise<number>;
  /**
   * Stops and starts the daemon on the same home, port and key: empties its in-memory caches (the query
   * embedding cache would otherwise answer a second pass over the same questions). `env` is added to the
   * daemon's environment until the next restart (e.g. MEM_SEARCH_MODEL_FILE for a held-out fold's model).
   */
  restart(env?: Readonly<Record<string, string>>): Promise<void>;
  /** Stops the daemon and starts the current build or StartOptions.alternate on the same home and port. */
  use(build: 'current' | 'alternate'): Promise<void>;
  /** Stops the daemon process and keeps its home (for work on the data directory while it is down). */
  halt(): Promise<void>;
  /**
   * Starts the daemon (stopped or not) on the same home and times a cold start: from spawn to the first
   * answered GET /health, and to the first successful `firstRequest` (retried every 10 ms until it answers).
   */
  coldStart(firstRequest: () => Promise<unknown>): Promise<{ toHealthMs: number; toFirstAnswerMs: number }>;
  /** SIGTERM, wait for the graceful shutdown (SIGKILL after 30 s), then remove the temporary home. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Extra environment for the daemon (e.g. MEM_EMBED_WORKERS). */
  readonly env?: Readonly<Record<string, string>>;
  /** Client timeout per request (default 120 s; large loads queue behind the embedder). */
  readonly timeoutMs?: number;
  /**
   * The root of another build (dist/ and bin/, e.g. `git archive <commit>` built with tsc, node_modules linked)
   * that `use('alternate')` runs on the same home and port: A/B comparisons on the same data.
   */
  readonly alternate?: string;
  /** A data home kept from an earlier run (its data, config and key), copied into the throw-away home first. */
  readonly from?: string;
}

/** Environment variables of the form MEM_* that this run passes to the daemon (for the report). */
export function memEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith('MEM_') && !ISOLATING_VARIABLES.includes(entry[0]) && entry[1] !== undefined,
    ),
  );
}

export interface BuildInfo {
  /** When dist/ was built (its CLI entry's mtime); null when there is no build. */
  readonly builtAt: string | null;
  /** HEAD when the build was snapshotted, and how many paths of src/, daemon/, bin/, package.json differed. */
  readonly commit: string | null;
  readonly uncommittedPaths: number | null;
}

function git(args: readonly string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return null; // no commit yet, or not a git checkout
  }
}

function describeBuild(): BuildInfo {
  let builtAt: string | null = null;
  try {
    builtAt = statSync(join(REPO_ROOT, 'dist', 'cli', 'main.js')).mtime.toISOString();
  } catch {
    // not built
  }
  const status = git(['status', '--porcelain', '--', 'src', 'daemon', 'bin', 'package.json']);
  return {
    builtAt,
    commit: git(['rev-parse', '--short', 'HEAD']),
    uncommittedPaths: status === null ? null : status.split('\n').filter(Boolean).length,
  };
}

let snapshot: { readonly dir: string; readonly build: BuildInfo } | null = null;

/** The build the daemons of this process run (described when it was snapshotted), else the current one. */
export function buildInfo(): BuildInfo {
  return snapshot?.build ?? describeBuild();
}

/**
 * A private copy of the build (dist/, bin/, package.json; node_modules linked) taken when the first daemon
 * of this process starts, so that every daemon of a run executes the same code even while someone else
 * rebuilds dist/ (npm test does). Removed when the process exits.
 */
export function buildSnapshot(): { readonly dir: string; readonly build: BuildInfo } {
  if (snapshot) return snapshot;
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (or `npm run bench`, which builds).');
  }
  const build = describeBuild();
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-build-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(REPO_ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(REPO_ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  copyFileSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  snapshot = { dir, build };
  return snapshot;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error('no free port'))));
    });
  });
}

function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    return match?.[1] ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolveExit) => {
    const timer = setTimeout(() => resolveExit(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveExit(true);
    });
  });
}

const sleep = (ms: number) => new Promise((resolveDelay) => setTimeout(resolveDelay, ms));

const running = new Set<ChildProcess>();
let hooksInstalled = false;

/** If the benchmark process ends early (error, Ctrl-C), its daemons go with it. */
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', () => {
    for (const child of running) if (!exited(child)) child.kill('SIGKILL');
  });
  // Ctrl-C: leave through process.exit so the exit hooks run (daemons, temporary folders).
  process.once('SIGINT', () => process.exit(130));
}

const START_ATTEMPTS = 3;

/**
 * Spawns `mem serve` and waits until GET /health answers. A start that fails (the process exits, prints an
 * `error[CODE]` line, or stays silent for 60 s) is retried up to START_ATTEMPTS times: the built-in
 * embedder's start-up has been seen to fail once on a loaded machine ("Backend 'wasm' has not yet been
 * initialized"), with the process left running, and one such hiccup should not cost a 20-minute run.
 */
async function launch(bin: string, env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchOnce(bin, env, port);
    } catch (error) {
      if (attempt >= START_ATTEMPTS) throw error;
      process.stderr.write(`  daemon start failed (attempt ${attempt}/${START_ATTEMPTS}), retrying: ${(error as Error).message.split('\n').slice(0, 2).join(' ')}\n`);
    }
  }
}

async function launchOnce(bin: string, env: NodeJS.ProcessEnv, port: number, pollMs = 100): Promise<ChildProcess> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', String(port)], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.once('exit', (code, signal) => {
    running.delete(child);
    // A daemon that dies in the middle of a run shows up as DAEMON_UNREACHABLE on the next request; its
    // exit status and last output (a native crash's message goes to stderr) say why.
    if (!stopping.has(child)) {
      process.stderr.write(`  the daemon (pid ${child.pid}) exited on its own: code ${code}, signal ${signal}\n${output.replace(/^/gm, '    ')}\n`);
    }
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const probe = new MemClient({ baseUrl: `http://127.0.0.1:${port}` });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited(child)) throw new Error(`the daemon exited during start-up (code ${child.exitCode}):\n${output}`);
    if (/^error\[/m.test(output)) {
      await terminate(child);
      throw new Error(`the daemon failed to start:\n${output}`);
    }
    if (Date.now() > deadline) {
      await terminate(child);
      throw new Error(`the daemon did not answer /health within ${START_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    const healthy = await probe.health(1000).then(
      () => true,
      () => false,
    );
    if (healthy) return child;
    await sleep(pollMs);
  }
}

/** Daemons this process asked to stop: any other exit is the daemon's own, and reported (launchOnce). */
const stopping = new WeakSet<ChildProcess>();

async function terminate(child: ChildProcess): Promise<void> {
  if (exited(child)) return;
  stopping.add(child);
  child.kill('SIGTERM');
  if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
    child.kill('SIGKILL');
    await waitForExit(child, 5000);
  }
}

/**
 * Starts a real daemon (`node bin/mem.js serve --port <free port>`, from the build snapshot) on a fresh
 * temporary MEM_HOME, waits for GET /health, and reads the API key it created through `mem token` with the
 * same environment. Needs `npm run build` first (bin/mem.js runs dist/).
 */
export async function startDaemon(options: StartOptions = {}): Promise<BenchDaemon> {
  const current = join(buildSnapshot().dir, 'bin', 'mem.js');
  let bin = current;
  installExitHooks();
  const home = mkdtempSync(join(tmpdir(), 'mem-bench-'));
  if (options.from) cpSync(options.from, home, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ISOLATING_VARIABLES) delete env[name];
  Object.assign(env, {
    MEM_HOME: home,
    LANCEDB_LOG: 'error',
    // Never touch the desktop keychain: the key of a throw-away home belongs in its own credentials file.
    MEM_NO_KEYCHAIN: '1',
    ...options.env,
  });
  const port = await freePort();
  const logFile = join(home, 'state', 'daemon.log');
  const runFile = join(home, 'state', 'daemon.json');
  const configFile = join(home, 'config', 'config.json');
  let child: ChildProcess | null = null;
  let peak = Number.NaN;

  // `mem serve` on Linux runs the daemon as its child (with glibc's allocator settings, src/cli/allocator.ts):
  // memory figures are the daemon's, whose pid its run file holds.
  const daemonPid = (): number => {
    if (!child?.pid) return 0;
    try {
      const pid = (JSON.parse(readFileSync(runFile, 'utf8')) as { pid?: unknown }).pid;
      if (typeof pid === 'number' && pid > 0) return pid;
    } catch {
      // not written yet
    }
    return child.pid;
  };
  const notePeak = () => {
    const pid = daemonPid();
    const now = pid ? procStatusMb(pid, 'VmHWM') : Number.NaN;
    if (Number.isFinite(now) && (Number.isNaN(peak) || now > peak)) peak = now;
  };
  const maintenancePasses = () => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').filter((line) => line.includes('"msg":"table maintenance"')).length;
    } catch {
      return 0;
    }
  };
  const stopChild = async () => {
    if (!child) return;
    notePeak();
    await terminate(child);
    child = null;
  };
  const stop = async () => {
    try {
      await stopChild();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  };

  try {
    child = await launch(bin, env, port);
    const { stdout } = await execFileAsync(process.execPath, [bin, 'token'], { cwd: REPO_ROOT, env });
    const key = stdout.trim();
    if (!key) throw new Error('`mem token` printed no key');
    const url = `http://127.0.0.1:${port}`;
    return {
      url,
      key,
      home,
      client: new MemClient({ baseUrl: url, apiKey: key, timeoutMs: options.timeoutMs ?? 120_000 }),
      pid: daemonPid,
      rssMb: () => (daemonPid() ? procStatusMb(daemonPid(), 'VmRSS') : Number.NaN),
      peakRssMb() {
        notePeak();
        return peak;
      },
      maintenancePasses,
      async compact() {
        const started = Date.now();
        const before = maintenancePasses();
        const original = existsSync(configFile) ? readFileSync(configFile, 'utf8') : null;
        const config = original ? (JSON.parse(original) as Record<string, unknown>) : {};
        await stopChild();
        writeFileSync(configFile, JSON.stringify({ ...config, 'maintenance.intervalMs': 1000 }));
        try {
          child = await launch(bin, env, port);
          const deadline = Date.now() + COMPACT_TIMEOUT_MS;
          while (maintenancePasses() <= before) {
            if (Date.now() > deadline) throw new Error('no maintenance pass was logged within 10 minutes');
            await sleep(200);
          }
          await stopChild();
        } finally {
          if (original === null) rmSync(configFile, { force: true });
          else writeFileSync(configFile, original);
        }
        child = await launch(bin, env, port);
        return (Date.now() - started) / 1000;
      },
      async restart(extra = {}) {
        await stopChild();
        child = await launch(bin, { ...env, ...extra }, port);
      },
      halt: stopChild,
      async use(build) {
        if (build === 'alternate' && !options.alternate) throw new Error('startDaemon was given no alternate build');
        await stopChild();
        bin = build === 'current' ? current : join(resolve(options.alternate as string), 'bin', 'mem.js');
        child = await launch(bin, env, port);
      },
      async coldStart(firstRequest) {
        await stopChild();
        const started = performance.now();
        // One attempt, polled every 10 ms: a retried start would not be a cold start's time.
        child = await launchOnce(bin, env, port, 10);
        const toHealthMs = performance.now() - started;
        for (;;) {
          try {
            await firstRequest();
            break;
          } catch (error) {
            if (performance.now() - started > START_TIMEOUT_MS) throw error;
            await sleep(10);
          }
        }
        return { toHealthMs, toFirstAnswerMs: performance.now() - started };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

const WARM_UP_QUERIES = ['warm-up: what happened last week', 'warm-up: notes about the project', 'warm-up: a question'];

/**
 * Before each mode's pass over the same questions: a restart for every pass but the first (no query
 * embedding left in the cache from the previous pass), then a few untimed searches so the first timed one
 * does not pay for cold code paths.
 */
export async function prepareSearchPass(
  daemon: BenchDaemon,
  pass: number,
  spaceId: string,
  hybrid: boolean,
  env?: Readonly<Record<string, string>>,
): Promise<void> {
  if (pass > 0 || env) await daemon.restart(env);
  for (const query of WARM_UP_QUERIES) await daemon.client.search({ query, spaceId, limit: 100, threshold: 0, hybrid });
}
