/**
 * Many clients at once (issue #23): throughput, latency and fairness of one daemon under concurrent load, on
 * `--size` memories (default 2,000; the issue's targets are stated at 100,000, which scale.ts loads).
 *
 * 1. Machine limit: each request type of the mix alone, one at a time, with the daemon's CPU seconds read
 *    from /proc/<pid>/stat (and per thread from /proc/<pid>/task: main thread, model workers, LanceDB): CPU per request, weighted by the mix, gives the requests per second the cores
 *    allow (2 cores / weighted cost; the load generator shares them, so the real ceiling is lower). Then the
 *    mix itself with one client: its CPU per request gives a second limit, which also pays for the fragments
 *    the mix's writes leave and for extraction beside the reads. With `--alternate`, each type alone is
 *    measured for the other build too, on the same store, right after (the limit stays the current build's).
 * 2. The mix of scale.ts (45% semantic search, 20% hybrid, 10% query, 10% get, 10% turbo save, 5% save) with
 *    16, 64, 64 and 16 clients (`--clients` sets another sequence; the runs' writes stay, so each finds a
 *    larger store), `--seconds` each; with `--alternate DIR` (another build) each as an A B pair on the same
 *    data, so both builds meet the same machine load; per run req/s, p50, p99, errors, 429s, and the daemon's
 *    own `load` figures at the end of the run (GET /v1/status: where the time goes), its CPU per request by
 *    thread kind during the run and the cores it got. After the runs, the searches alone again on the tables
 *    the runs' writes left (contention vs the store's state), once the background work the runs left
 *    (extraction, knowledge commits, compactions) is done, as before each type alone (settle()).
 * 3. Bulk ingest alone: `--ingest` standard items, then as many turbo items, as async jobs with nobody else
 *    using the daemon, warmed first as before the concurrent runs (A B A B with `--alternate`); then search during a bulk ingest: as many standard items
 *    (the issue's figure is 10,000) while one client searches one request at a time, search p50/p95 then and
 *    alone before (A B A B too).
 * 4. A folder's first scan: `--scan` markdown notes (default 500) in a fresh folder, `POST /v1/watches`, timed
 *    to the scan job's end, as A B A B with `--alternate`; files/s against the models alone on the same texts.
 *    `--seconds 0` skips step 2 and `--ingest 0` step 3 (to time the scan alone).
 * 5. The models' own cap on items like these in-process (2 embedding workers and the extraction thread, as
 *    the daemon runs them, without storing anything), before the daemon starts and after it stops, and each
 *    ingest rate through the API as a ratio to the mean of the two. Also the CPU per item of each: the
 *    daemon's during each job (by thread kind) and the models' in-process. On two cores both are bound by CPU,
 *    so models / daemon CPU per item is what the job can reach of the cap on an idle host; unlike the rates,
 *    it moves little with other processes' load.
 *
 * `--during N` sets the items of the search-during-ingest runs apart from `--ingest` (the issue's figure is a
 * 10,000-item ingest: `--ingest 400 --during 10000`).
 *
 * `--alternate-first` runs the pairs B A B A, so that the searches alone after the runs are the current build's.
 *
 * `--home DIR` keeps the loaded, compacted store in DIR and starts later runs of the same `--size` from a copy
 * of it (the runs' writes go to the copy, DIR stays as loaded): the daemon embeds every memory it loads, at
 * about 100 a second on two cores, so 100,000 take half an hour or more. The store is the one a user who
 * imported those memories has (the same import, embedded and extracted by the daemon, then compacted by its
 * maintenance pass, which builds the vector index above 50,000 passages). DIR records the size and seed it
 * holds; a run of another size refuses it rather than loading over it.
 *
 *   node --import tsx bench/load.ts [--size 2000] [--seconds 20] [--ingest 2000] [--during N] [--scan 500] [--alternate DIR [--alternate-first]] [--home DIR] [--clients 16,64,64,16]
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cpus, loadavg, tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { BuiltinEmbeddingModel } from '../src/providers/builtin/builtin-embedding-model.js';
import { BuiltinExtractor } from '../src/providers/builtin/builtin-extractor.js';
import { embedPassages, memoryPassages } from '../src/core/chunking.js';
import { deriveTitle } from '../src/core/memory-service.js';
import { embedMany } from '../src/providers/embed-many.js';
import { startDaemon, type BenchDaemon } from './lib/daemon.js';
import { createNoteGenerator, type NoteGenerator } from './lib/notes.js';
import { concurrency, createMemoryStream, load, type ConcurrencyFigures } from './scale.js';
import { finishStandalone, isMain, measure, type BenchResult, type Table } from './lib/report.js';
import { latencyFigures, round, timed } from './lib/stats.js';
import { execFileSync } from 'node:child_process';

const SEED = 20261124;
/** The seed of the loaded memories (scale.ts's: the same notes, tags, spaces and dates). */
const STORE_SEED = 20261121;
/** What a kept store (`--home`) holds, in a file beside its data. */
const KEPT_FILE = 'bench-load-store.json';
/** The concurrent runs' client counts: the issue's two, in an order that weighs the store's growth on both alike. */
const DEFAULT_CLIENTS = [16, 64, 64, 16];

/** Whether `home` holds a kept store of `size` memories; throws if it holds another. */
function keptStore(home: string, size: number): boolean {
  const file = join(home, KEPT_FILE);
  if (!existsSync(file)) {
    if (existsSync(home) && readdirSync(home).length > 0) throw new Error(`--home ${home} is not empty and holds no ${KEPT_FILE}: not a kept store`);
    return false;
  }
  const kept = JSON.parse(readFileSync(file, 'utf8')) as { size?: unknown; seed?: unknown };
  if (kept.size !== size || kept.seed !== STORE_SEED) throw new Error(`--home ${home} holds ${String(kept.size)} memories of seed ${String(kept.seed)}, not ${size} of ${STORE_SEED}`);
  return true;
}

/**
 * Copies a loaded and compacted daemon home to `home` once the work the load left is done (the standard
 * memories' extraction) and the daemon is stopped (the tables at rest), without the run's state files (run
 * file, log); then starts the daemon again on its own home.
 */
async function keepStore(daemon: BenchDaemon, home: string, size: number): Promise<void> {
  await settle(daemon);
  await daemon.halt();
  const state = join(daemon.home, 'state');
  cpSync(daemon.home, home, { recursive: true, filter: (source) => !(source.startsWith(state) && /^daemon\.(json|log)$/.test(relative(state, source))) });
  writeFileSync(join(home, KEPT_FILE), `${JSON.stringify({ size, seed: STORE_SEED, keptAt: new Date().toISOString() })}\n`);
  await daemon.restart();
}

/** CPU seconds the process has used (user + system), from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU ms the process's threads have used, by kind (Linux, /proc/<pid>/task): `main` (the event loop),
 * `workers` (the other threads Node names "node": the embedding and extraction worker threads, and libuv's
 * pool), `lancedb` (its tokio runtime and "lance-cpu" threads) and `other`: the rest of the process's CPU,
 * V8's helpers and the threads that have exited (a thread's own counters go with it, the process's stay:
 * LanceDB's tokio blocking pool grows to ~100 threads under many clients and shrinks after 10 s idle, so
 * live threads alone would drop their CPU from a run's figures).
 */
function threadCpu(pid: number): Record<string, number> {
  const out: Record<string, number> = { main: 0, workers: 0, lancedb: 0, other: 0 };
  const processMs = cpuSeconds(pid) * 1000;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * 10;
    const kind = tid === String(pid) ? 'main' : name === 'node' ? 'workers' : /^(tokio|lance)/.test(name) ? 'lancedb' : null;
    if (kind) out[kind] = (out[kind] ?? 0) + ms;
  }
  out.other = Math.max(0, processMs - (out.main ?? 0) - (out.workers ?? 0) - (out.lancedb ?? 0));
  return out;
}

/**
 * Waits until the daemon's background work is done (its CPU under 2% of a core over two 1 s windows in a
 * row, at most 120 s): a concurrent run leaves extraction, knowledge commits and compactions behind it for
 * several seconds, and CPU read meanwhile would be charged to the requests measured next. Returns the ms it
 * waited.
 */
export async function settle(daemon: BenchDaemon): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  while (quiet < 2 && performance.now() - started < 120_000) {
    const before = cpuSeconds(daemon.pid());
    await new Promise((resolve) => setTimeout(resolve, 1000));
    quiet = (cpuSeconds(daemon.pid()) - before) * 1000 <= 20 ? quiet + 1 : 0;
  }
  return Math.round(performance.now() - started);
}

/**
 * A restarted daemon first does its start-up work (the search cohort's embeddings, the model threads'
 * start, resumed work) and runs cold (JIT, tfjs's kernels, LanceDB's caches): warm it with each request type
 * and let that work finish, so that what follows measures the build, not its start.
 */
async function warmUp(daemon: BenchDaemon, entries: readonly MixEntry[]): Promise<void> {
  for (const entry of entries) for (let i = 0; i < 5; i++) await entry.run(2000 + i);
  await settle(daemon);
}

interface MixEntry {
  readonly share: number;
  readonly name: string;
  readonly run: (i: number) => Promise<unknown>;
}

function mix(daemon: BenchDaemon, queries: NoteGenerator, writes: NoteGenerator, ids: readonly string[]): MixEntry[] {
  const c = daemon.client;
  return [
    { share: 0.45, name: 'search semantic', run: () => c.search({ query: queries.query(), limit: 10 }) },
    { share: 0.2, name: 'search hybrid', run: () => c.search({ query: queries.query(), limit: 10, hybrid: true }) },
    { share: 0.1, name: 'query', run: (i) => c.query({ filters: { tags: ['meeting', 'todo', 'idea'][i % 3] }, limit: 20 }) },
    { share: 0.1, name: 'get', run: (i) => c.getMemory(ids[(i * 7919) % ids.length] as string) },
    { share: 0.1, name: 'turbo save', run: () => c.turboSave({ content: writes.note().content, tags: ['bench-load'] }) },
    { share: 0.05, name: 'save', run: () => c.save({ content: writes.note().content, tags: ['bench-load'] }) },
  ];
}

/**
 * CPU ms per request of each type run alone, one at a time (after a short warm-up), and how it splits
 * between the daemon's threads (threadCpu: ms per request by kind).
 */
async function costAlone(
  daemon: BenchDaemon,
  entries: readonly MixEntry[],
  count: number,
): Promise<{ total: Record<string, number>; threads: Record<string, Record<string, number>>; settledMs: Record<string, number> }> {
  const total: Record<string, number> = {};
  const threads: Record<string, Record<string, number>> = {};
  const settledMs: Record<string, number> = {};
  for (const entry of entries) {
    for (let i = 0; i < 5; i++) await entry.run(1000 + i);
    // Let the background work before (extraction after saves, compactions) finish first.
    settledMs[entry.name] = await settle(daemon);
    const before = cpuSeconds(daemon.pid());
    const threadsBefore = threadCpu(daemon.pid());
    for (let i = 0; i < count; i++) await entry.run(i);
    total[entry.name] = round(((cpuSeconds(daemon.pid()) - before) * 1000) / count, 1);
    const threadsAfter = threadCpu(daemon.pid());
    threads[entry.name] = Object.fromEntries(Object.entries(threadsAfter).map(([kind, ms]) => [kind, round((ms - (threadsBefore[kind] ?? 0)) / count, 1)]));
  }
  return { total, threads, settledMs };
}

interface LoadRun extends ConcurrencyFigures {
  readonly build: 'current' | 'alternate';
  readonly load: unknown;
  /**
   * The daemon's CPU per answered request during the run, by thread kind (threadCpu), against the same
   * request types alone: what contention (and the fragments the run's writes leave) adds to each request.
   */
  readonly cpuMsPerRequest: Record<string, number>;
  /** Cores the daemon used on average during the run (CPU seconds / wall seconds): what the host gave it. */
  readonly cores: number;
  /** 1-minute load average at the end of the run. */
  readonly loadAverage: number;
}

/** The concurrent mix with the daemon's CPU read around it (see LoadRun). */
async function measuredRun(
  daemon: BenchDaemon,
  build: 'current' | 'alternate',
  clients: number,
  seconds: number,
  queries: NoteGenerator,
  writes: NoteGenerator,
  ids: readonly string[],
): Promise<LoadRun> {
  const pid = daemon.pid();
  const before = threadCpu(pid);
  const started = performance.now();
  const figures = await concurrency(daemon, clients, seconds, queries, writes, ids);
  const wallMs = performance.now() - started;
  const after = threadCpu(pid);
  const answered = Math.max(1, figures.requests);
  const cpuMsPerRequest = Object.fromEntries(Object.keys(after).map((kind) => [kind, round(((after[kind] ?? 0) - (before[kind] ?? 0)) / answered, 1)]));
  const totalMs = Object.keys(after).reduce((sum, kind) => sum + (after[kind] ?? 0) - (before[kind] ?? 0), 0);
  cpuMsPerRequest.total = round(totalMs / answered, 1);
  const status = (await daemon.client.status()) as { load?: unknown };
  return { ...figures, build, load: status.load ?? null, cpuMsPerRequest, cores: round(totalMs / wallMs, 2), loadAverage: round(loadavg()[0] ?? Number.NaN, 2) };
}

interface ScanRun {
  readonly build: 'current' | 'alternate';
  readonly files: number;
  readonly seconds: number;
  readonly filesPerSecond: number;
  /** The daemon's commits while the scan ran (GET /v1/status load, over the scan's last 10 s). */
  readonly rowsPerCommit: number | null;
}

/** The notes of a folder-scan run: the same texts for every run, so that the builds scan the same work. */
function scanTexts(files: number): string[] {
  const notes = createNoteGenerator(SEED + 3 * files);
  return Array.from({ length: files }, (_, i) => `# Note ${i}\n\n${notes.note().content}\n`);
}

/**
 * A folder's first scan: `texts` written as markdown files to a fresh folder (so every run creates new
 * memories), `POST /v1/watches`, timed to the scan job's completion; the watch is removed afterwards.
 */
async function folderScan(daemon: BenchDaemon, build: 'current' | 'alternate', texts: readonly string[]): Promise<ScanRun> {
  const folder = mkdtempSync(join(tmpdir(), 'mem-bench-scan-'));
  try {
    texts.forEach((text, i) => writeFileSync(join(folder, `note-${String(i).padStart(5, '0')}.md`), text));
    const started = performance.now();
    const added = await daemon.client.addWatch({ path: folder, keepDeleted: false });
    for (;;) {
      const status = await daemon.client.ingestStatus(added.jobId);
      if (status.status === 'completed' || status.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const seconds = (performance.now() - started) / 1000;
    const load = ((await daemon.client.status()) as { load?: { commits?: { rowsPerCommit?: number } } }).load;
    await daemon.client.removeWatch(added.watch.id);
    return { build, files: texts.length, seconds: round(seconds, 1), filesPerSecond: round(texts.length / seconds, 1), rowsPerCommit: load?.commits?.rowsPerCommit ?? null };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

interface IngestFigures {
  readonly build: 'current' | 'alternate';
  readonly alone: ReturnType<typeof latencyFigures>;
  readonly during: ReturnType<typeof latencyFigures>;
  readonly ingestSeconds: number;
  /** The job while one client searched (the background pace slows it then). */
  readonly itemsPerSecond: number;
  readonly searches: number;
  /** GET /v1/status `load` when the job was half done. */
  readonly midway: unknown;
}

interface IngestRun {
  readonly build: 'current' | 'alternate';
  /** Items/s of a job with nobody else using the daemon: standard items, then as many turbo ones. */
  readonly standard: number;
  readonly turbo: number;
  /** The daemon's CPU ms per item during each job, in all and by thread kind (threadCpu). */
  readonly standardCpu: Record<string, number>;
  readonly turboCpu: Record<string, number>;
}

/**
 * An ingest job of `payload` with nobody else using the daemon: items/s from the request to the job's end as
 * the daemon records it (`completedAt`; the status is polled twice a second), and the daemon's CPU ms per
 * item meanwhile. On two cores the job is bound by CPU, so its CPU per item against
 * the models' own (modelsCap) says how far it can come to their pace on an idle host, when other processes'
 * load makes the rates of one run hard to compare.
 */
async function ingestAlone(daemon: BenchDaemon, payload: readonly { content: string; tags: string[] }[], turbo = false): Promise<{ rate: number; cpu: Record<string, number> }> {
  const pid = daemon.pid();
  const before = threadCpu(pid);
  const started = Date.now();
  const accepted = await daemon.client.ingest({ items: [...payload], async: true, turbo });
  let finished = Number.NaN;
  for (;;) {
    const status = await daemon.client.ingestStatus(accepted.jobId);
    if (status.status === 'completed' || status.status === 'failed') {
      // The job's end as the daemon recorded it (same host, same clock): the poll finds it up to one
      // interval later, which would count against the job (a few % of a 400-item job).
      finished = status.completedAt !== null ? Date.parse(status.completedAt) : Date.now();
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const seconds = (finished - started) / 1000;
  const after = threadCpu(pid);
  const perItem = (kind: string) => round(((after[kind] ?? 0) - (before[kind] ?? 0)) / payload.length, 1);
  const cpu = { main: perItem('main'), workers: perItem('workers'), lancedb: perItem('lancedb'), other: perItem('other') };
  return { rate: round(payload.length / seconds, 1), cpu: { total: round(cpu.main + cpu.workers + cpu.lancedb + cpu.other, 1), ...cpu } };
}

async function searchDuringIngest(daemon: BenchDaemon, build: 'current' | 'alternate', queries: NoteGenerator, items: number): Promise<IngestFigures> {
  const alone: number[] = [];
  for (let i = 0; i < 60; i++) alone.push((await timed(() => daemon.client.search({ query: queries.query(), limit: 10 }))).ms);
  const notes = createNoteGenerator(SEED + items);
  const payload = Array.from({ length: items }, () => ({ content: notes.note().content, tags: ['bench-ingest'] }));
  const started = performance.now();
  const accepted = await daemon.client.ingest({ items: payload, async: true });
  const during: number[] = [];
  let done = false;
  let midway: unknown = null;
  const poll = (async () => {
    for (;;) {
      const status = await daemon.client.ingestStatus(accepted.jobId);
      if (status.status === 'completed' || status.status === 'failed') break;
      // The daemon's own figures half-way through: where a search's time goes while the job runs.
      if (midway === null && status.progress.percentage >= 50) midway = ((await daemon.client.status()) as { load?: unknown }).load ?? null;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    done = true;
  })();
  while (!done) during.push((await timed(() => daemon.client.search({ query: queries.query(), limit: 10 }))).ms);
  await poll;
  const seconds = (performance.now() - started) / 1000;
  return { build, alone: latencyFigures(alone), during: latencyFigures(during), ingestSeconds: round(seconds, 1), itemsPerSecond: round(items / seconds, 1), searches: during.length, midway };
}

/**
 * Embedding and extraction of the same items in-process, as the daemon runs them, nothing stored: items/s,
 * and this process's CPU ms per item meanwhile (the models' threads and V8's helpers; the load generator is
 * idle then).
 */
async function modelsCap(texts: readonly string[]): Promise<{ standard: number; turbo: number; standardCpu: number; turboCpu: number }> {
  const items = texts.length;
  const embedder = new BuiltinEmbeddingModel(2);
  const extractor = new BuiltinExtractor({ thread: true });
  await embedder.init();
  await extractor.init();
  try {
    const embedAll = () =>
      embedPassages(
        texts.map((text) => memoryPassages(text, deriveTitle(text), '', '')),
        (batch) => embedMany(embedder, batch, { priority: 'background' }),
      );
    const cpuMs = () => cpuSeconds(process.pid) * 1000;
    const turboFrom = cpuMs();
    const turbo = await timed(embedAll);
    const standardFrom = cpuMs();
    const standard = await timed(() =>
      Promise.all([embedAll(), Promise.all(texts.map((text) => extractor.extract({ text, referenceTime: Date.now() })))]),
    );
    const standardCpu = round((cpuMs() - standardFrom) / items, 1);
    return { standard: round(items / (standard.ms / 1000), 1), turbo: round(items / (turbo.ms / 1000), 1), standardCpu, turboCpu: round((standardFrom - turboFrom) / items, 1) };
  } finally {
    await extractor.close();
    await embedder.close();
  }
}

export interface LoadBenchOptions {
  readonly size?: number;
  readonly seconds?: number;
  readonly ingest?: number;
  readonly alternate?: string | undefined;
  /** Files of the folder-scan runs (0: none); A B A B with `alternate`. */
  readonly scan?: number;
  /** Items of the ingest a client searches during (default: `ingest`). */
  readonly during?: number;
  /**
   * B A B A instead of A B A B: the searches alone after the runs are measured on the last build to run, so
   * this gives the current build's figure (a second run with the default order gives the alternate's).
   */
  readonly alternateFirst?: boolean;
  /** A directory that keeps the loaded store between runs (see the file's header). */
  readonly home?: string | undefined;
  /**
   * The concurrent runs' client counts, in order (default 16 64 64 16). A longer symmetric sequence
   * (16 64 64 16 16 64 64 16) weighs the store's growth on both counts alike over more runs, when one
   * count's runs are to be compared with the other's more finely than one sequence's spread allows.
   */
  readonly clients?: readonly number[];
}

export async function runLoadBench(options: LoadBenchOptions = {}): Promise<BenchResult> {
  const started = Date.now();
  const size = options.size ?? 2000;
  const seconds = options.seconds ?? 20;
  const ingestItems = options.ingest ?? 2000;
  const duringItems = options.during ?? ingestItems;
  const scanFiles = options.scan ?? 500;
  const scans: ScanRun[] = [];
  const uptimeBefore = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const stream = createMemoryStream(STORE_SEED);
  const kept = options.home ? keptStore(options.home, size) : false;
  const daemon = await startDaemon({ timeoutMs: 600_000, ...(options.alternate ? { alternate: options.alternate } : {}), ...(kept ? { from: options.home } : {}) });
  let loadSeconds: number | null = null;
  const runs: LoadRun[] = [];
  let cost: Record<string, number> = {};
  let costThreads: Record<string, Record<string, number>> = {};
  let costAlternate: Record<string, number> = {};
  let costAlternateThreads: Record<string, Record<string, number>> = {};
  let serial: LoadRun | null = null;
  let costAfterRuns: { build: string; total: Record<string, number>; threads: Record<string, Record<string, number>>; settledMs: Record<string, number> } | null = null;
  const ingest: IngestFigures[] = [];
  const ingestRuns: IngestRun[] = [];
  const capNotes = createNoteGenerator(SEED + ingestItems + 1);
  const capTexts = Array.from({ length: ingestItems }, () => capNotes.note().content);
  process.stderr.write('  the models alone on the same number of items (before)\n');
  const noCap = { standard: Number.NaN, turbo: Number.NaN, standardCpu: Number.NaN, turboCpu: Number.NaN };
  const capBefore = ingestItems > 0 ? await modelsCap(capTexts) : noCap;
  try {
    const items = Array.from({ length: size }, () => stream());
    if (kept) {
      process.stderr.write(`  ${size} memories from the kept store ${options.home}\n`);
    } else {
      process.stderr.write(`  loading ${size} memories\n`);
      loadSeconds = round((await load(daemon, items, new Map())).seconds, 1);
      await daemon.compact();
      if (options.home) await keepStore(daemon, options.home, size);
    }
    const ids = items.map((item) => item.id);
    const queries = createNoteGenerator(SEED + 7);
    const writes = createNoteGenerator(SEED + 11);
    const entries = mix(daemon, queries, writes, ids);
    process.stderr.write('  each request type alone (CPU per request)\n');
    ({ total: cost, threads: costThreads } = await costAlone(daemon, entries, 40));
    if (options.alternate) {
      // The other build's cost of each type alone, on the same store (the current build's writes above stay:
      // a few dozen rows beside `size`).
      await daemon.use('alternate');
      await warmUp(daemon, entries);
      process.stderr.write('  each request type alone, alternate (CPU per request)\n');
      ({ total: costAlternate, threads: costAlternateThreads } = await costAlone(daemon, entries, 40));
      await daemon.use('current');
      await warmUp(daemon, entries);
    }
    // The limit above adds up each type alone on compacted tables; the mix itself, one request at a time,
    // also pays for the fragments its own writes leave behind and for extraction running beside the reads.
    if (seconds > 0) {
      process.stderr.write(`  the mix, one client, ${seconds} s (CPU per request)\n`);
      serial = await measuredRun(daemon, 'current', 1, seconds, queries, writes, ids);
    }
    const pair: ('current' | 'alternate')[] = options.alternateFirst ? ['alternate', 'current'] : ['current', 'alternate'];
    const builds: ('current' | 'alternate')[] = options.alternate ? [...pair, ...pair] : ['current'];
    // Every run's writes stay in the store, and each run finds more rows and fragments than the one before:
    // runs in the order 16 64 64 16 clients, each a pair of builds with --alternate, so that this drift
    // weighs on both client counts (and both builds) alike.
    for (const clients of seconds > 0 ? (options.clients ?? DEFAULT_CLIENTS) : []) {
      for (const build of options.alternate ? pair : builds) {
        if (options.alternate) {
          await daemon.use(build);
          await warmUp(daemon, entries);
        }
        process.stderr.write(`  ${clients} clients, ${build}, ${seconds} s\n`);
        runs.push(await measuredRun(daemon, build, clients, seconds, queries, writes, ids));
      }
    }
    if (seconds > 0) {
      // The same searches alone again, on the tables the concurrent runs' writes left (no restart between:
      // a start compacts): how much of a search's extra CPU under load is the store's state, not contention.
      const searches = entries.filter((entry) => entry.name.startsWith('search'));
      process.stderr.write('  searches alone after the concurrent runs (CPU per request)\n');
      const after = await costAlone(daemon, searches, 40);
      costAfterRuns = { build: builds[builds.length - 1] ?? 'current', total: after.total, threads: after.threads, settledMs: after.settledMs };
    }
    if (scanFiles > 0) {
      const texts = scanTexts(scanFiles);
      for (const build of builds) {
        if (options.alternate) await daemon.use(build);
        process.stderr.write(`  a folder's first scan of ${scanFiles} files, ${build}\n`);
        scans.push(await folderScan(daemon, build, texts));
      }
    }
    if (ingestItems > 0 || duringItems > 0) {
      let run = 0;
      for (const build of ingestItems > 0 ? builds : []) {
        if (options.alternate) await daemon.use(build);
        // The daemon was just started (by use(), or by compact() above): its start-up work and cold models
        // would land in the standard job, which runs first, and not in the turbo one after it, while the
        // models' cap is timed on models already started and warmed.
        await warmUp(daemon, entries);
        process.stderr.write(`  an ingest of ${ingestItems} standard items, then ${ingestItems} turbo, alone, ${build}\n`);
        // New texts each run (an item equal to a stored memory would cost what a new one does, but reads differ).
        const notes = createNoteGenerator(SEED + 1000 * ++run + ingestItems);
        const payload = () => Array.from({ length: ingestItems }, () => ({ content: notes.note().content, tags: ['bench-ingest-alone'] }));
        const standard = await ingestAlone(daemon, payload());
        const turbo = await ingestAlone(daemon, payload(), true);
        ingestRuns.push({ build, standard: standard.rate, turbo: turbo.rate, standardCpu: standard.cpu, turboCpu: turbo.cpu });
      }
      for (const build of duringItems > 0 ? builds : []) {
        if (options.alternate) await daemon.use(build);
        process.stderr.write(`  searches during an ingest of ${duringItems} items, ${build}\n`);
        ingest.push(await searchDuringIngest(daemon, build, queries, duringItems));
      }
    }
  } finally {
    await daemon.stop();
  }
  process.stderr.write('  the models alone on the same number of items (after)\n');
  const capAfter = ingestItems > 0 ? await modelsCap(capTexts) : noCap;
  const cap = {
    standard: round((capBefore.standard + capAfter.standard) / 2, 1),
    turbo: round((capBefore.turbo + capAfter.turbo) / 2, 1),
    standardCpu: round((capBefore.standardCpu + capAfter.standardCpu) / 2, 1),
    turboCpu: round((capBefore.turboCpu + capAfter.turboCpu) / 2, 1),
  };
  const scanCap = scanFiles > 0 ? await modelsCap(scanTexts(scanFiles)) : null;
  const uptimeAfter = execFileSync('uptime', { encoding: 'utf8' }).trim();

  const weights = Object.fromEntries(mix({} as BenchDaemon, createNoteGenerator(1), createNoteGenerator(1), []).map((entry) => [entry.name, entry.share]));
  const weightedMs = Object.entries(cost).reduce((sum, [name, ms]) => sum + (weights[name] ?? 0) * ms, 0);
  const cores = cpus().length;
  const limit = round((cores * 1000) / weightedMs, 1);
  const weightedAlternateMs = Object.entries(costAlternate).reduce((sum, [name, ms]) => sum + (weights[name] ?? 0) * ms, 0);
  const limitAlternate = weightedAlternateMs > 0 ? round((cores * 1000) / weightedAlternateMs, 1) : null;
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = sorted.length / 2;
    return sorted.length === 0 ? Number.NaN : Number.isInteger(middle) ? round(((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2, 1) : (sorted[Math.floor(middle)] ?? Number.NaN);
  };
  const summary = (clients: number, build: string) => {
    const chosen = runs.filter((run) => run.clients === clients && run.build === build);
    return { requestsPerSecond: median(chosen.map((run) => run.requestsPerSecond)), p50Ms: median(chosen.map((run) => run.p50Ms)), p99Ms: median(chosen.map((run) => run.p99Ms)) };
  };
  const runTable: Table = {
    title: `concurrent clients on ${size} memories (${seconds} s per run)`,
    header: ['clients', 'build', 'req/s', 'p50 ms', 'p99 ms', 'errors', '429s', 'share of limit', 'daemon cores', 'CPU ms/request: total', 'main', 'workers', 'LanceDB', 'other', 'load avg'],
    rows: [...(serial ? [serial] : []), ...runs].map((run) => [
      run.clients,
      run.build,
      run.requestsPerSecond,
      run.p50Ms,
      run.p99Ms,
      run.errors,
      run.rateLimited,
      round(run.requestsPerSecond / limit, 2),
      run.cores,
      run.cpuMsPerRequest.total ?? '-',
      run.cpuMsPerRequest.main ?? '-',
      run.cpuMsPerRequest.workers ?? '-',
      run.cpuMsPerRequest.lancedb ?? '-',
      run.cpuMsPerRequest.other ?? '-',
      run.loadAverage,
    ]),
  };
  const serialLimit = serial ? round((cores * 1000) / (serial.cpuMsPerRequest.total ?? Number.NaN), 1) : null;
  const costTable: Table = {
    title: `daemon CPU per request, each type alone (ms); weighted ${round(weightedMs, 1)} ms -> limit ${limit} req/s on ${cores} cores${limitAlternate ? ` (alternate: ${round(weightedAlternateMs, 1)} ms -> ${limitAlternate} req/s)` : ''}`,
    header: ['type', 'share of mix', 'CPU ms', 'main thread', 'worker threads (models)', 'LanceDB threads', 'other threads'],
    rows: [
      ...Object.entries(cost).map(([name, ms]) => {
        const split = costThreads[name] ?? {};
        return [name, weights[name] ?? 0, ms, split.main ?? '-', split.workers ?? '-', split.lancedb ?? '-', split.other ?? '-'];
      }),
      ...Object.entries(costAlternate).map(([name, ms]) => {
        const split = costAlternateThreads[name] ?? {};
        return [`${name}, alternate`, weights[name] ?? 0, ms, split.main ?? '-', split.workers ?? '-', split.lancedb ?? '-', split.other ?? '-'];
      }),
      ...Object.entries(costAfterRuns?.total ?? {}).map(([name, ms]) => {
        const split = costAfterRuns?.threads[name] ?? {};
        const waited = round((costAfterRuns?.settledMs[name] ?? 0) / 1000, 1);
        return [`${name}, after the runs (${costAfterRuns?.build}; background work done after ${waited} s)`, '-', ms, split.main ?? '-', split.workers ?? '-', split.lancedb ?? '-', split.other ?? '-'];
      }),
      ...(serial ? [[`the mix, one client (limit ${serialLimit} req/s)`, 1, serial.cpuMsPerRequest.total ?? '-', serial.cpuMsPerRequest.main ?? '-', serial.cpuMsPerRequest.workers ?? '-', serial.cpuMsPerRequest.lancedb ?? '-', serial.cpuMsPerRequest.other ?? '-']] : []),
    ],
  };
  const ingestTable: Table = {
    title: `bulk ingest of ${ingestItems} items alone against the models' own cap (before / after the daemon: standard ${capBefore.standard} / ${capAfter.standard}, turbo ${capBefore.turbo} / ${capAfter.turbo} items/s)`,
    header: ['build', 'standard items/s', 'standard / cap', 'turbo items/s', 'turbo / cap'],
    rows: ingestRuns.map((run) => [run.build, run.standard, round(run.standard / cap.standard, 2), run.turbo, round(run.turbo / cap.turbo, 2)]),
  };
  const cpu = (split: Record<string, number>) => `${split.total} (${split.main} / ${split.workers} / ${split.lancedb} / ${split.other})`;
  const ingestCpuTable: Table = {
    title: `the same jobs' CPU per item in the daemon against the models' own in-process (standard ${cap.standardCpu}, turbo ${cap.turboCpu} ms/item; before / after the daemon: ${capBefore.standardCpu} / ${capAfter.standardCpu}, ${capBefore.turboCpu} / ${capAfter.turboCpu})`,
    header: ['build', 'standard CPU ms/item (main / workers / LanceDB / other)', 'models / daemon', 'turbo CPU ms/item', 'models / daemon'],
    rows: ingestRuns.map((run) => [
      run.build,
      cpu(run.standardCpu),
      round(cap.standardCpu / (run.standardCpu.total ?? Number.NaN), 2),
      cpu(run.turboCpu),
      round(cap.turboCpu / (run.turboCpu.total ?? Number.NaN), 2),
    ]),
  };
  const duringTable: Table = {
    title: `search during a bulk ingest of ${duringItems} standard items (one client searching)`,
    header: ['build', 'search alone p50 / p95 ms', 'during ingest p50 / p95 ms', 'searches', 'ingest items/s meanwhile'],
    rows: ingest.map((run) => [run.build, `${run.alone.p50} / ${run.alone.p95}`, `${run.during.p50} / ${run.during.p95}`, run.searches, run.itemsPerSecond]),
  };
  const scanTable: Table = {
    title: `a folder's first scan of ${scanFiles} markdown notes; the models alone on the same texts: ${scanCap?.standard ?? '-'} items/s`,
    header: ['build', 'seconds', 'files/s', 'share of the models\' cap', 'rows per commit (last 10 s)'],
    rows: scans.map((run) => [run.build, run.seconds, run.filesPerSecond, scanCap ? round(run.filesPerSecond / scanCap.standard, 2) : '-', run.rowsPerCommit ?? '-']),
  };
  return {
    name: 'load',
    quick: false,
    seconds: Math.round((Date.now() - started) / 1000),
    figures: {
      size,
      seconds,
      keptStore: options.home ?? null,
      loadSeconds,
      uptimeBefore,
      uptimeAfter,
      costAloneMs: cost,
      costAloneByThreadMs: costThreads,
      costAloneAlternateMs: costAlternate,
      limitAlternateRequestsPerSecond: limitAlternate,
      costAloneAlternateByThreadMs: costAlternateThreads,
      weightedCostMs: round(weightedMs, 1),
      limitRequestsPerSecond: limit,
      serialMix: serial,
      limitFromSerialMix: serialLimit,
      costAfterRuns,
      medians: Object.fromEntries([16, 64].flatMap((clients) => ['current', 'alternate'].map((build) => [`${clients} ${build}`, summary(clients, build)]))),
      runs,
      ingest,
      ingestRuns,
      modelsCap: cap,
      modelsCapBefore: capBefore,
      modelsCapAfter: capAfter,
      scans,
      scanModelsCap: scanCap,
    },
    tables: [costTable, runTable, scanTable, ingestTable, ingestCpuTable, duringTable],
    notes: [`uptime before: ${uptimeBefore}`, `uptime after: ${uptimeAfter}`, 'The load generator runs on the same cores as the daemon.'],
  };
}

/** `--clients 16,64,64,16`: positive whole numbers, comma-separated. */
function clientCounts(text: string): number[] {
  const counts = text.split(',').map((part) => Number(part.trim()));
  if (counts.some((count) => !Number.isInteger(count) || count < 1)) {
    throw new Error(`--clients takes client counts separated by commas (for example 16,64,64,16), not "${text}"`);
  }
  return counts;
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: { size: { type: 'string' }, seconds: { type: 'string' }, ingest: { type: 'string' }, during: { type: 'string' }, scan: { type: 'string' }, alternate: { type: 'string' }, 'alternate-first': { type: 'boolean', default: false }, home: { type: 'string' }, clients: { type: 'string' } },
  });
  finishStandalone(
    await measure(() =>
      runLoadBench({
        ...(values.size ? { size: Number(values.size) } : {}),
        ...(values.seconds ? { seconds: Number(values.seconds) } : {}),
        ...(values.ingest ? { ingest: Number(values.ingest) } : {}),
        ...(values.during ? { during: Number(values.during) } : {}),
        ...(values.scan ? { scan: Number(values.scan) } : {}),
        alternate: values.alternate,
        alternateFirst: values['alternate-first'],
        home: values.home,
        ...(values.clients ? { clients: clientCounts(values.clients) } : {}),
      }),
    ),
  );
}
