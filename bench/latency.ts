/**
 * Latency benchmark: a real daemon with the built-in embedder, driven through the HTTP API by the typed
 * client, at 1k and 10k memories (quick: 1k only).
 *
 * Per size: load generated notes (bench/lib/notes.ts) with LOAD_CONCURRENCY saves in flight until the daemon
 * holds exactly that many memories (load throughput, RSS after load). Then, one request at a time (limit 10,
 * threshold 0 so every search returns and reads a full page), each search block after WARM_UP untimed
 * searches:
 *   1. AS_LOADED searches per mode right after the load, while every save is still its own small LanceDB
 *      fragment (what a search sees right after a bulk import);
 *   2. compaction: the state the daemon's periodic maintenance (every 5 min) keeps the tables in
 *      (BenchDaemon.compact());
 *   3. TIMED searches in semantic mode and TIMED in hybrid mode (the headline figures: steady state);
 *   4. TIMED synchronous saves.
 * Every query is a fresh sentence, so no search is answered by the daemon's query-embedding cache. The
 * timed saves leave the store at size + TIMED, and the next size's load tops it up.
 *
 *   node --import tsx bench/latency.ts [--quick]
 */
import { parseArgs } from 'node:util';
import { startDaemon, type BenchDaemon } from './lib/daemon.js';
import { createNoteGenerator, type NoteGenerator } from './lib/notes.js';
import { progress, runPool } from './lib/pool.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { latencyFigures, round, throughput, timed, type Summary } from './lib/stats.js';

const LOAD_CONCURRENCY = 8;
const TIMED = 200;
const WARM_UP = 5;
const AS_LOADED = 100;
const NOTE_SEED = 20240611;
const QUERY_SEED = 7;

export interface LatencyOptions {
  readonly quick?: boolean;
  readonly sizes?: readonly number[];
}

interface SizeFigures {
  readonly memories: number;
  readonly load: { readonly items: number; readonly seconds: number; readonly itemsPerSecond: number };
  readonly rssAfterLoadMb: number;
  readonly saveMs: Summary;
  readonly semanticSearchMs: Summary;
  readonly hybridSearchMs: Summary;
  /** Right after the load, before compaction. */
  readonly asLoaded: { readonly semanticSearchMs: Summary; readonly hybridSearchMs: Summary };
  readonly compactSeconds: number;
  /** Periodic maintenance passes (compaction) that ran while this size's requests were timed: they stall requests. */
  readonly maintenancePassesWhileTimed: number;
}

async function load(daemon: BenchDaemon, notes: NoteGenerator, count: number, label: string) {
  const items = Array.from({ length: count }, () => notes.note());
  const bar = progress(label, count);
  const { ms } = await timed(() =>
    runPool(items, LOAD_CONCURRENCY, async (note) => {
      await daemon.client.save({ content: note.content, tags: note.tags });
      bar.tick();
    }),
  );
  bar.done();
  return { items: count, seconds: round(ms / 1000, 1), itemsPerSecond: round(throughput(count, ms), 1) };
}

async function searchLatencies(daemon: BenchDaemon, notes: NoteGenerator, hybrid: boolean, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const query = notes.query();
    const { value, ms } = await timed(() => daemon.client.search({ query, limit: 10, threshold: 0, hybrid }));
    if (value.results.length === 0) throw new Error(`search returned nothing for "${query}"`);
    latencies.push(ms);
  }
  return latencies;
}

export async function runLatency(options: LatencyOptions = {}): Promise<BenchResult> {
  const quick = options.quick ?? false;
  const sizes = options.sizes ?? (quick ? [1000] : [1000, 10_000]);
  const started = Date.now();
  const notes = createNoteGenerator(NOTE_SEED);
  const queries = createNoteGenerator(QUERY_SEED);
  const daemon = await startDaemon();
  const perSize: SizeFigures[] = [];
  let maintenancePasses = 0;
  let peakRssMb = Number.NaN;
  try {
    let stored = 0;
    for (const size of sizes) {
      const loaded = await load(daemon, notes, Math.max(0, size - stored), `load to ${size}`);
      stored = size;
      const rssAfterLoadMb = round(daemon.rssMb(), 0);
      await searchLatencies(daemon, queries, false, WARM_UP);
      await searchLatencies(daemon, queries, true, WARM_UP);
      const semanticAsLoaded = await searchLatencies(daemon, queries, false, AS_LOADED);
      const hybridAsLoaded = await searchLatencies(daemon, queries, true, AS_LOADED);
      const compactSeconds = round(await daemon.compact(), 1);
      const passesBefore = daemon.maintenancePasses();
      await searchLatencies(daemon, queries, false, WARM_UP);
      await searchLatencies(daemon, queries, true, WARM_UP);
      const semantic = await searchLatencies(daemon, queries, false, TIMED);
      const hybrid = await searchLatencies(daemon, queries, true, TIMED);
      const saves: number[] = [];
      for (let i = 0; i < TIMED; i++) {
        const note = notes.note();
        saves.push((await timed(() => daemon.client.save({ content: note.content, tags: note.tags }))).ms);
      }
      stored += TIMED;
      perSize.push({
        memories: size,
        load: loaded,
        rssAfterLoadMb,
        saveMs: latencyFigures(saves),
        semanticSearchMs: latencyFigures(semantic),
        hybridSearchMs: latencyFigures(hybrid),
        asLoaded: { semanticSearchMs: latencyFigures(semanticAsLoaded), hybridSearchMs: latencyFigures(hybridAsLoaded) },
        compactSeconds,
        maintenancePassesWhileTimed: daemon.maintenancePasses() - passesBefore,
      });
    }
    const status = await daemon.client.status();
    if (status.memoryCount !== stored) throw new Error(`the daemon holds ${status.memoryCount} memories, expected ${stored}`);
    maintenancePasses = daemon.maintenancePasses();
    peakRssMb = round(daemon.peakRssMb(), 0);
  } finally {
    await daemon.stop();
  }

  const label = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
  const totalItems = perSize.reduce((sum, size) => sum + size.load.items, 0);
  const totalSeconds = perSize.reduce((sum, size) => sum + size.load.seconds, 0);
  return {
    name: 'latency',
    quick,
    seconds: (Date.now() - started) / 1000,
    figures: {
      method: {
        loadConcurrency: LOAD_CONCURRENCY,
        timedRequests: TIMED,
        asLoadedSearches: AS_LOADED,
        warmUpSearches: WARM_UP,
        search: { limit: 10, threshold: 0 },
        embedder: 'builtin',
      },
      sizes: Object.fromEntries(perSize.map((size) => [label(size.memories), size])),
      loadItemsPerSecond: round(throughput(totalItems, totalSeconds * 1000), 1),
      peakRssMb,
      maintenancePasses,
    },
    tables: [
      {
        title: 'Latency through the HTTP API (ms; one request at a time; built-in embedder; tables compacted)',
        header: ['memories', 'save p50', 'save p95', 'semantic p50', 'semantic p95', 'hybrid p50', 'hybrid p95', 'load items/s', 'RSS MB'],
        rows: perSize.map((size) => [
          label(size.memories),
          size.saveMs.p50,
          size.saveMs.p95,
          size.semanticSearchMs.p50,
          size.semanticSearchMs.p95,
          size.hybridSearchMs.p50,
          size.hybridSearchMs.p95,
          size.load.itemsPerSecond,
          size.rssAfterLoadMb,
        ]),
      },
      {
        title: 'Search latency right after the load, before compaction (ms)',
        header: ['memories', 'semantic p50', 'semantic p95', 'hybrid p50', 'hybrid p95', 'compaction s'],
        rows: perSize.map((size) => [
          label(size.memories),
          size.asLoaded.semanticSearchMs.p50,
          size.asLoaded.semanticSearchMs.p95,
          size.asLoaded.hybridSearchMs.p50,
          size.asLoaded.hybridSearchMs.p95,
          size.compactSeconds,
        ]),
      },
    ],
    notes: [
      `load: ${LOAD_CONCURRENCY} saves in flight; then ${AS_LOADED} searches per mode as loaded, compaction, ${TIMED} searches per mode and ${TIMED} saves, one at a time (${WARM_UP} warm-up searches per mode before each block)`,
      `peak RSS of the daemon ${peakRssMb} MB; periodic maintenance passes logged: ${maintenancePasses}, of which while timing` +
        ` the compacted searches and saves: ${perSize.map((size) => `${label(size.memories)} ${size.maintenancePassesWhileTimed}`).join(', ')}`,
    ],
  };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  finishStandalone(await measure(() => runLatency({ quick: values.quick })));
}
