import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import type { Lane, LaneLoad } from '../src/core/scheduling/admission.js';
import type { RequestTimings, RequestTypeLoad } from '../src/core/scheduling/request-timings.js';
import type { CommitLoad, SearchTablesLoad, VectorSearchLoad } from '../src/core/ports.js';
import type { EmbedderLoad } from '../src/providers/spec.js';
import { runningWorkers } from '../src/providers/builtin/worker-spawn.js';

/** What GET /v1/status reports under `load` (see LoadResponse in the API contract). */
export interface LoadReport {
  readonly windowSeconds: number;
  readonly eventLoop: { readonly delayP50Ms: number; readonly delayP99Ms: number; readonly delayMaxMs: number; readonly utilization: number };
  /** Busy share of one core, per thread kind: the main thread, each kind of worker thread, and the rest of the process. */
  readonly cpu: { readonly process: number; readonly main: number; readonly workers: Record<string, number>; readonly other: number };
  readonly lanes: Record<Lane, LaneLoad>;
  readonly requests: RequestTypeLoad[];
  readonly embedder: {
    readonly workers: number;
    readonly queued: { readonly interactive: number; readonly background: number };
    readonly textsPerSecond: number;
    readonly meanBatch: number;
    readonly queuedMs: number;
    readonly workingMs: number;
  } | null;
  readonly commits: { readonly perSecond: number; readonly rowsPerCommit: number; readonly meanMs: number } | null;
  readonly vectorSearches: { readonly queriesPerSecond: number; readonly searchesPerSecond: number; readonly searchesPerQuery: number } | null;
  readonly searchTables: {
    readonly pendingCommits: number;
    readonly compactions: number;
    readonly compactingShare: number;
    readonly vectorIndexParts: number | null;
    readonly pendingPassages: number | null;
  } | null;
}

export interface LoadSources {
  readonly lanes: () => Record<Lane, LaneLoad>;
  readonly timings: RequestTimings;
  readonly embedder?: (() => EmbedderLoad) | undefined;
  readonly commits?: (() => CommitLoad) | undefined;
  readonly vectorSearches?: (() => VectorSearchLoad) | undefined;
  readonly searchTables?: (() => SearchTablesLoad) | undefined;
}

interface Tick {
  readonly at: number;
  readonly cpuMicros: number;
  readonly mainActive: number;
  /** Active ms per worker kind during the tick. */
  readonly workers: Record<string, number>;
  readonly delayP50: number;
  readonly delayP99: number;
  readonly delayMax: number;
  readonly embedder: EmbedderLoad | null;
  readonly commits: CommitLoad | null;
  readonly vectorSearches: VectorSearchLoad | null;
  readonly searchTables: SearchTablesLoad | null;
}

const TICK_MS = 1000;

/**
 * The process's CPU over a window as cores, split into the main thread, each kind of worker and the rest.
 * The threads' parts are their busy time (event-loop utilisation), which is CPU while each has a core; on a
 * host whose cores other processes contend for, a busy thread also waits for one, and the parts would add
 * up to more than the process used. They are then scaled down together to the process's CPU, so the split
 * keeps its proportions and the parts add up.
 */
export function cpuShares(cpuMs: number, mainBusyMs: number, workerBusyMs: Record<string, number>, elapsedMs: number): { process: number; main: number; workers: Record<string, number>; other: number } {
  const busy = mainBusyMs + Object.values(workerBusyMs).reduce((a, b) => a + b, 0);
  const scale = busy > cpuMs && busy > 0 ? cpuMs / busy : 1;
  const share = (ms: number) => round(ms / Math.max(1, elapsedMs), 2);
  const workers = Object.fromEntries(Object.entries(workerBusyMs).map(([name, ms]) => [name, share(ms * scale)]));
  const main = share(mainBusyMs * scale);
  const whole = share(cpuMs);
  const other = round(Math.max(0, whole - main - Object.values(workers).reduce((a, b) => a + b, 0)), 2);
  return { process: whole, main, workers, other };
}

/**
 * Samples the daemon's load once a second and reports the last `windowSeconds`: event-loop delay
 * (monitorEventLoopDelay) and utilisation, CPU of the whole process and the busy share of the main thread
 * and of each kind of worker thread (their event-loop utilisation: the models run synchronously on them, so
 * busy is CPU), the rest (LanceDB's threads, GC, I/O) as the difference; the lanes' queues; per request type
 * the time queued and working; the embedder's rate and batches; commits per second and their duration;
 * vector queries per second and how many searches each answered.
 */
export class LoadMonitor {
  private readonly ticks: Tick[] = [];
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  private readonly timer: NodeJS.Timeout;
  private lastCpu = process.cpuUsage();
  private lastMain: EventLoopUtilization = performance.eventLoopUtilization();
  private readonly lastWorker = new Map<Worker, EventLoopUtilization>();

  constructor(
    private readonly sources: LoadSources,
    readonly windowSeconds = 10,
  ) {
    this.histogram.enable();
    this.ticks.push(this.sample());
    this.timer = setInterval(() => {
      this.ticks.push(this.sample());
      if (this.ticks.length > windowSeconds + 1) this.ticks.shift();
    }, TICK_MS);
    this.timer.unref();
  }

  private sample(): Tick {
    const cpu = process.cpuUsage(this.lastCpu);
    this.lastCpu = process.cpuUsage();
    const main = performance.eventLoopUtilization(this.lastMain);
    this.lastMain = performance.eventLoopUtilization();
    const workers: Record<string, number> = {};
    const seen = new Set<Worker>();
    for (const { name, worker } of runningWorkers()) {
      seen.add(worker);
      const now = worker.performance.eventLoopUtilization();
      const before = this.lastWorker.get(worker);
      this.lastWorker.set(worker, now);
      if (before) workers[name] = (workers[name] ?? 0) + (now.active - before.active);
    }
    for (const worker of this.lastWorker.keys()) if (!seen.has(worker)) this.lastWorker.delete(worker);
    const histogram = this.histogram;
    const tick: Tick = {
      at: performance.now(),
      cpuMicros: cpu.user + cpu.system,
      mainActive: main.active,
      workers,
      delayP50: histogram.count > 0 ? histogram.percentile(50) / 1e6 : 0,
      delayP99: histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0,
      delayMax: histogram.count > 0 ? histogram.max / 1e6 : 0,
      embedder: this.sources.embedder?.() ?? null,
      commits: this.sources.commits?.() ?? null,
      vectorSearches: this.sources.vectorSearches?.() ?? null,
      searchTables: this.sources.searchTables?.() ?? null,
    };
    histogram.reset();
    return tick;
  }

  report(): LoadReport {
    // The window: every tick since the oldest kept one, plus what happened since the last tick.
    const ticks = [...this.ticks.slice(1), this.sample()];
    this.ticks.splice(0, this.ticks.length, ...ticks.slice(-(this.windowSeconds + 1)));
    const first = this.ticks[0] as Tick;
    const used = this.ticks.slice(1);
    const elapsedMs = Math.max(1, (used.at(-1)?.at ?? first.at) - first.at);
    const share = (activeMs: number) => round(activeMs / elapsedMs, 2);
    const sum = (pick: (tick: Tick) => number) => used.reduce((total, tick) => total + pick(tick), 0);
    const workers: Record<string, number> = {};
    for (const tick of used) for (const [name, ms] of Object.entries(tick.workers)) workers[name] = (workers[name] ?? 0) + ms;
    const main = share(sum((tick) => tick.mainActive));
    const cpu = cpuShares(sum((tick) => tick.cpuMicros) / 1000, sum((tick) => tick.mainActive), workers, elapsedMs);
    const last = used.at(-1) ?? first;
    const seconds = elapsedMs / 1000;
    const embedder = last.embedder && first.embedder ? embedderRates(first.embedder, last.embedder, seconds) : null;
    const commits = last.commits && first.commits ? commitRates(first.commits, last.commits, seconds) : null;
    const vectorSearches = last.vectorSearches && first.vectorSearches ? vectorSearchRates(first.vectorSearches, last.vectorSearches, seconds) : null;
    const searchTables = last.searchTables && first.searchTables ? searchTableRates(first.searchTables, last.searchTables, elapsedMs) : null;
    return {
      windowSeconds: round(seconds, 1),
      eventLoop: {
        delayP50Ms: round(used.length > 0 ? sum((tick) => tick.delayP50) / used.length : 0, 1),
        delayP99Ms: round(Math.max(0, ...used.map((tick) => tick.delayP99)), 1),
        delayMaxMs: round(Math.max(0, ...used.map((tick) => tick.delayMax)), 1),
        utilization: main,
      },
      cpu,
      lanes: this.sources.lanes(),
      requests: this.sources.timings.snapshot(),
      embedder,
      commits,
      vectorSearches,
      searchTables,
    };
  }

  close(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

function embedderRates(before: EmbedderLoad, after: EmbedderLoad, seconds: number): NonNullable<LoadReport['embedder']> {
  const texts = after.texts - before.texts;
  const batches = after.batches - before.batches;
  return {
    workers: after.workers,
    queued: after.queued,
    textsPerSecond: round(texts / seconds, 1),
    meanBatch: round(batches > 0 ? texts / batches : 0, 1),
    queuedMs: round(texts > 0 ? (after.queuedMs - before.queuedMs) / texts : 0, 1),
    workingMs: round(texts > 0 ? (after.workingMs - before.workingMs) / texts : 0, 1),
  };
}

function commitRates(before: CommitLoad, after: CommitLoad, seconds: number): NonNullable<LoadReport['commits']> {
  const commits = after.commits - before.commits;
  return {
    perSecond: round(commits / seconds, 1),
    rowsPerCommit: round(commits > 0 ? (after.rows - before.rows) / commits : 0, 1),
    meanMs: round(commits > 0 ? (after.ms - before.ms) / commits : 0, 1),
  };
}

function vectorSearchRates(before: VectorSearchLoad, after: VectorSearchLoad, seconds: number): NonNullable<LoadReport['vectorSearches']> {
  const queries = after.queries - before.queries;
  const searches = after.searches - before.searches;
  return {
    queriesPerSecond: round(queries / seconds, 1),
    searchesPerSecond: round(searches / seconds, 1),
    searchesPerQuery: round(queries > 0 ? searches / queries : 0, 2),
  };
}

/** Gauges as they stand now; the compactions finished in the window, and the share of it they took. */
function searchTableRates(before: SearchTablesLoad, after: SearchTablesLoad, elapsedMs: number): NonNullable<LoadReport['searchTables']> {
  return {
    pendingCommits: after.pendingCommits,
    compactions: after.compactions - before.compactions,
    compactingShare: round(Math.min(1, (after.compactionMs - before.compactionMs) / elapsedMs), 2),
    vectorIndexParts: after.vectorIndexParts,
    pendingPassages: after.pendingPassages,
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
