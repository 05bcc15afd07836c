/**
 * The scale benchmark (issue #10): every user-facing operation timed through the HTTP API of a real daemon
 * holding 10,000 and then 100,000 memories (quick: 2,000), plus concurrency, cold start, memory and disk.
 *
 * Data (seeded, SEED below): bench/lib/notes.ts writes the notes (48 people, 30 companies, 30 places, 60
 * topics, ~30 note templates, 9-50 words, 1-3 tags). Each memory also gets a createdAt spread uniformly over
 * the two years before 2026-10-01, a space (40% none, 30% work, 20% personal, 10% research) and metadata
 * {priority 0-5, status todo|doing|done, source}. One in 20 is a standard memory (embedded and extracted
 * by the built-in extractor, so the knowledge graph is the one those notes give); the rest are turbo
 * memories (embedded only), as a folder of quick notes would be.
 *
 * Loading: the memories go in through POST /v1/import in batches of 2,000 (two in flight). The daemon embeds
 * them with its built-in embedder, which at ~100 passages/s on two cores makes 100k a ~17-minute load. The
 * vectors are therefore cached between runs: after a first load the benchmark reads them back through
 * GET /v1/export?withVectors=true and keeps them (base64 float32) in
 * $XDG_CACHE_HOME/mem/bench/scale-<seed>-<model>.ndjson (~270 MB for 100k); a later run sends them with the
 * import lines, which the daemon then stores as they are (it checks that model, dimension and passages
 * match). Extraction of the standard memories runs in both cases. `--no-cache` ignores the cache.
 *
 * At each size, after loading and a compaction pass (bench/lib/daemon.ts: compact()), one request at a time:
 *   search semantic / hybrid, each without and with filters (a tag; a space and a 6-month range),
 *   then the same queries in-process (the daemon stopped, the same data directory opened by MemoryService
 *   with the built-in embedder in this process, whose query embedding cache starts empty; the daemon is
 *   started again afterwards),
 *   query (filters: tag + metadata + date range; aggregations: countByTag + week histogram),
 *   ask (built-in, default tier) and turbo ask, remind, entities (top 20), graph at depth 3, usage,
 *   then standard save and turbo save;
 * then 16 and 64 concurrent clients for 60 s (quick: 10 s) mixing 45% semantic search, 20% hybrid search,
 * 10% query, 10% get, 10% turbo save and 5% standard save: throughput, p50/p99 per operation, errors;
 * RSS of the daemon after the one-at-a-time requests and after the concurrency runs, on-disk size of the
 * data directory per memory, and cold start:
 * the daemon stopped and started on the same data, timed from spawn to the first answered search.
 *
 *   node --import tsx bench/scale.ts [--quick] [--sizes 10000,100000] [--no-cache]
 */
import { spawn } from 'node:child_process';
import { appendFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { ALLOCATOR_ENV } from '../src/cli/allocator.js';
import { loadConfig } from '../src/config/load-config.js';
import { derivedMemoryId } from '../src/core/export/format.js';
import { MemoryService } from '../src/core/memory-service.js';
import { BuiltinEmbeddingModel } from '../src/providers/builtin/builtin-embedding-model.js';
import { openLanceStore } from '../src/store/lancedb/lancedb-store.js';
import { parseBound } from '../daemon/present.js';
import { MemError } from '../src/errors.js';
import { startDaemon, type BenchDaemon } from './lib/daemon.js';
import { createNoteGenerator, createRandom, type NoteGenerator } from './lib/notes.js';
import { progress, runPool } from './lib/pool.js';
import { finishStandalone, isMain, measure, type BenchResult, type Table } from './lib/report.js';
import { latencyFigures, percentile, round, timed, type Summary } from './lib/stats.js';

const SEED = 20261121;
const MODEL_ID = 'builtin/use-lite';
const DAY = 86_400_000;
/** createdAt of generated memories: the two years before this fixed date (so ids are the same every run). */
const END = Date.UTC(2026, 9, 1);
const SPAN = 730 * DAY;
const IMPORT_BATCH = 2000;
const STANDARD_EVERY = 20;
/** Wait before "RSS at rest": past the extraction thread's minute of idle time. */
const REST_MS = 75_000;

export interface ScaleOptions {
  readonly quick?: boolean;
  readonly sizes?: readonly number[];
  readonly cache?: boolean;
}

export interface Generated {
  readonly id: string;
  readonly content: string;
  readonly tags: string[];
  readonly spaceId: string;
  readonly createdAt: number;
  readonly metadata: Record<string, unknown>;
  readonly turbo: boolean;
}

/** The i-th generated memory is the same in every run (one generator, consumed in order). */
export function createMemoryStream(seed: number): () => Generated {
  const notes = createNoteGenerator(seed);
  const random = createRandom(seed + 1);
  let index = 0;
  return () => {
    const note = notes.note();
    const roll = random();
    const spaceId = roll < 0.4 ? '' : roll < 0.7 ? 'work' : roll < 0.9 ? 'personal' : 'research';
    const createdAt = END - Math.floor(random() * SPAN);
    const metadata = {
      priority: Math.floor(random() * 6),
      status: ['todo', 'doing', 'done'][Math.floor(random() * 3)],
      source: random() < 0.5 ? 'notes-app' : 'cli',
    };
    const turbo = index++ % STANDARD_EVERY !== 0;
    return { id: derivedMemoryId(note.content, createdAt, spaceId), content: note.content, tags: note.tags, spaceId, createdAt, metadata, turbo };
  };
}

// ---- vector cache ----------------------------------------------------------------------------------------

interface CachedPassage {
  readonly seq: number;
  readonly text: string;
  readonly b64: string;
}

function cacheFile(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'mem', 'bench', `scale-${SEED}-${MODEL_ID.replace(/[^a-z0-9-]/gi, '_')}.ndjson`);
}

async function readCache(file: string): Promise<Map<string, CachedPassage[]>> {
  const cache = new Map<string, CachedPassage[]>();
  if (!existsSync(file)) return cache;
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    try {
      const entry = JSON.parse(line) as { id: string; vectors: CachedPassage[] };
      cache.set(entry.id, entry.vectors);
    } catch {
      // a line cut short by an interrupted run: ignore it, the memory is embedded again
    }
  }
  return cache;
}

function decode(b64: string): number[] {
  const bytes = Buffer.from(b64, 'base64');
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
}

function encode(vector: readonly number[]): string {
  return Buffer.from(Float32Array.from(vector).buffer).toString('base64');
}

/** Reads the vectors of `wanted` memories back from the daemon and appends them to the cache file. */
async function fillCache(daemon: BenchDaemon, file: string, wanted: ReadonlySet<string>, cache: Map<string, CachedPassage[]>): Promise<number> {
  mkdirSync(join(file, '..'), { recursive: true });
  let added = 0;
  let buffer = '';
  for await (const line of daemon.client.exportLines({ withVectors: true })) {
    if (!line.includes('"type":"memory"')) continue;
    const record = JSON.parse(line) as { id: string; vectors?: { seq: number; text: string; vector: number[] }[] };
    if (!wanted.has(record.id) || cache.has(record.id) || !record.vectors) continue;
    const vectors = record.vectors.map((passage) => ({ seq: passage.seq, text: passage.text, b64: encode(passage.vector) }));
    cache.set(record.id, vectors);
    buffer += `${JSON.stringify({ id: record.id, vectors })}\n`;
    added += 1;
    if (buffer.length > 8_000_000) {
      appendFileSync(file, buffer);
      buffer = '';
    }
  }
  if (buffer) appendFileSync(file, buffer);
  return added;
}

// ---- loading ---------------------------------------------------------------------------------------------

interface LoadFigures {
  readonly memories: number;
  readonly seconds: number;
  readonly memoriesPerSecond: number;
  /** How many of the loaded memories came with cached vectors (not embedded by the daemon this run). */
  readonly fromCache: number;
  readonly compactionSeconds: number;
}

export async function load(
  daemon: BenchDaemon,
  items: readonly Generated[],
  cache: Map<string, CachedPassage[]>,
): Promise<{ seconds: number; fromCache: number }> {
  const batches: Generated[][] = [];
  for (let i = 0; i < items.length; i += IMPORT_BATCH) batches.push(items.slice(i, i + IMPORT_BATCH));
  const header = { type: 'header', format: 'mem-export', version: 1, embedding: { modelId: MODEL_ID, dimension: 512 } };
  let fromCache = 0;
  const bar = progress('import', batches.length);
  const started = performance.now();
  await runPool(batches, 2, async (batch) => {
    const records: unknown[] = [header];
    for (const item of batch) {
      const cached = cache.get(item.id);
      if (cached) fromCache += 1;
      records.push({
        type: 'memory',
        content: item.content,
        tags: item.tags,
        spaceId: item.spaceId,
        createdAt: new Date(item.createdAt).toISOString(),
        metadata: item.metadata,
        turbo: item.turbo,
        ...(cached ? { vectors: cached.map((passage) => ({ seq: passage.seq, text: passage.text, vector: decode(passage.b64) })) } : {}),
      });
    }
    const answer = await daemon.client.importRecords(records);
    if (answer.errors.length > 0) {
      throw new Error(`import failed for ${answer.errors.length} records: ${JSON.stringify(answer.errors.slice(0, 3))}`);
    }
    bar.tick();
  });
  bar.done();
  return { seconds: (performance.now() - started) / 1000, fromCache };
}

// ---- timed operations -------------------------------------------------------------------------------------

interface Operation {
  readonly name: string;
  /** One request; `i` makes each call different from the previous one. */
  readonly run: (i: number) => Promise<unknown>;
}

async function timeSequential(op: Operation, count: number, warmUp: number): Promise<Summary> {
  for (let i = 0; i < warmUp; i++) await op.run(-1 - i);
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push((await timed(() => op.run(i))).ms);
  return latencyFigures(times);
}

function dateRange(i: number): { after: string; before: string } {
  const start = END - SPAN + ((i * 37) % 540) * DAY;
  return { after: new Date(start).toISOString().slice(0, 10), before: new Date(start + 182 * DAY).toISOString().slice(0, 10) };
}

const FILTER_TAGS = ['meeting', 'todo', 'idea', 'travel', 'reading', 'personal'];
const SPACES = ['work', 'personal', 'research'];

interface Workload {
  readonly searches: Record<string, { readonly queries: string[]; readonly hybrid: boolean; readonly filtered: boolean }>;
  readonly ops: Operation[];
}

function workload(daemon: BenchDaemon, queries: NoteGenerator, count: number, centre: string, ids: readonly string[]): Workload {
  const c = daemon.client;
  const fresh = () => Array.from({ length: count }, () => queries.query());
  const searches = {
    'search semantic': { queries: fresh(), hybrid: false, filtered: false },
    'search hybrid': { queries: fresh(), hybrid: true, filtered: false },
    'search semantic + tag': { queries: fresh(), hybrid: false, filtered: true },
    'search hybrid + space + dates': { queries: fresh(), hybrid: true, filtered: true },
  };
  const asks = fresh();
  const turboAsks = fresh();
  const reminds = fresh();
  const ops: Operation[] = [
    {
      name: 'query: filters + sort',
      run: (i) =>
        c.query({
          filters: { tags: FILTER_TAGS[Math.abs(i) % FILTER_TAGS.length], 'metadata.status': 'todo', createdAt: { $gte: dateRange(Math.abs(i)).after } },
          sort: { createdAt: -1 },
          limit: 20,
        }),
    },
    {
      name: 'query: aggregations',
      run: (i) =>
        c.query({
          filters: { createdAt: { $gte: dateRange(Math.abs(i)).after, $lt: dateRange(Math.abs(i)).before } },
          limit: 10,
          aggregate: { countByTag: true, dateHistogram: { field: 'createdAt', interval: 'week' } },
        }),
    },
    // Warm-up calls (i < 0) take questions of their own, so no timed one finds its embedding cached.
    { name: 'ask (built-in)', run: (i) => c.ask({ query: asks[i] ?? queries.query() }) },
    { name: 'turbo ask', run: (i) => c.turboAsk({ query: turboAsks[i] ?? queries.query() }) },
    { name: 'remind', run: (i) => c.remind({ context: `Today I am thinking about ${reminds[i] ?? queries.query()}` }) },
    { name: 'entities (top 20)', run: (i) => c.entities({ limit: 20, offset: Math.abs(i) % 5 }) },
    { name: 'graph depth 3', run: () => c.graph({ entity: centre, depth: 3 }) },
    { name: 'get memory', run: (i) => c.getMemory(ids[(Math.abs(i) * 7919) % ids.length] as string) },
    { name: 'usage', run: () => c.usage({ period: 'month' }) },
  ];
  return { searches, ops };
}

function searchBody(query: string, hybrid: boolean, filtered: boolean, i: number) {
  if (!filtered) return { query, hybrid, limit: 10, threshold: 0 };
  return hybrid
    ? { query, hybrid, limit: 10, threshold: 0, spaceId: SPACES[i % SPACES.length], ...dateRange(i) }
    : { query, hybrid, limit: 10, threshold: 0, tags: [FILTER_TAGS[i % FILTER_TAGS.length] as string] };
}

/**
 * The same searches in-process, on the daemon's data directory (the daemon is stopped meanwhile), in a child
 * process of this script that runs with the daemon's glibc allocator settings (src/cli/allocator.ts): they
 * cost the brute-force scans below 50k passages ~10 ms (each scan's buffers are mapped and unmapped, in
 * exchange for a smaller RSS), and the ratio is meant to show what the API adds, not the allocator.
 */
async function searchInProcessChild(
  home: string,
  tenant: string,
  searches: Workload['searches'],
  warmUp: number,
): Promise<Record<string, Summary>> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-inproc-'));
  try {
    const request = join(dir, 'request.json');
    const answer = join(dir, 'answer.json');
    writeFileSync(request, JSON.stringify({ home, tenant, searches, warmUp, answer }));
    await new Promise<void>((resolvePromise, reject) => {
      const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
        env: { ...process.env, ...ALLOCATOR_ENV, [IN_PROCESS_REQUEST]: request },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`the in-process search pass exited with code ${code}`))));
    });
    return JSON.parse(readFileSync(answer, 'utf8')) as Record<string, Summary>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Set in the environment of the child that runs the in-process pass: the path of its request. */
const IN_PROCESS_REQUEST = 'MEM_BENCH_IN_PROCESS_REQUEST';

async function searchInProcess(
  home: string,
  tenant: string,
  searches: Workload['searches'],
  warmUp: number,
): Promise<Record<string, Summary>> {
  const loaded = loadConfig({ env: { ...process.env, MEM_HOME: home } });
  const embedder = new BuiltinEmbeddingModel(loaded.config['embedding.workers']);
  await embedder.init();
  const storage = await openLanceStore({
    uri: loaded.storageUri,
    vectorSpace: { modelId: embedder.modelId, dimension: embedder.dimension },
    cacheMb: { index: loaded.config['storage.indexCacheMb'], metadata: loaded.config['storage.metadataCacheMb'] },
  });
  try {
    // Searches only: no knowledge service (and no extractor) is needed.
    const memories = new MemoryService({ storage, embedder });
    // What the search route hands MemoryService for a request body (daemon/routes/search.ts).
    const search = (body: ReturnType<typeof searchBody>) =>
      memories.search(tenant, {
        query: body.query,
        limit: body.limit,
        offset: 0,
        threshold: body.threshold,
        hybrid: body.hybrid,
        filter: {
          spaceId: 'spaceId' in body ? body.spaceId : undefined,
          tags: 'tags' in body ? body.tags : undefined,
          after: parseBound('after' in body ? body.after : undefined, 'start'),
          before: parseBound('before' in body ? body.before : undefined, 'end'),
        },
      });
    const figures: Record<string, Summary> = {};
    for (const [name, { queries, hybrid, filtered }] of Object.entries(searches)) {
      // The same warm-up requests as the HTTP pass (timeSequential with i = -1, -2, ...).
      for (let i = 0; i < warmUp; i++) await search(searchBody(`warm-up ${name} ${-1 - i}`, hybrid, filtered, 0));
      const times: number[] = [];
      for (const [i, query] of queries.entries()) times.push((await timed(() => search(searchBody(query, hybrid, filtered, i)))).ms);
      figures[name] = latencyFigures(times);
    }
    return figures;
  } finally {
    await storage.close();
    await embedder.close();
  }
}

// ---- concurrency ------------------------------------------------------------------------------------------

export interface ConcurrencyFigures {
  readonly clients: number;
  readonly seconds: number;
  readonly requests: number;
  readonly requestsPerSecond: number;
  /** Failed requests other than deliberate 429s. */
  readonly errors: number;
  /** Requests the daemon refused with 429 RATE_LIMITED (its queues were full): backpressure, not failure. */
  readonly rateLimited: number;
  readonly errorSamples: string[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly byOperation: Record<string, { count: number; p50Ms: number; p99Ms: number }>;
}

export async function concurrency(
  daemon: BenchDaemon,
  clients: number,
  seconds: number,
  queries: NoteGenerator,
  writes: NoteGenerator,
  ids: readonly string[],
): Promise<ConcurrencyFigures> {
  const c = daemon.client;
  const mix: [number, string, (i: number) => Promise<unknown>][] = [
    [0.45, 'search semantic', () => c.search({ query: queries.query(), limit: 10 })],
    [0.2, 'search hybrid', () => c.search({ query: queries.query(), limit: 10, hybrid: true })],
    [0.1, 'query', (i) => c.query({ filters: { tags: FILTER_TAGS[i % FILTER_TAGS.length] }, limit: 20 })],
    [0.1, 'get', (i) => c.getMemory(ids[(i * 7919) % ids.length] as string)],
    [0.1, 'turbo save', () => c.turboSave({ content: writes.note().content, tags: ['bench-concurrency'] })],
    [0.05, 'save', () => c.save({ content: writes.note().content, tags: ['bench-concurrency'] })],
  ];
  const random = createRandom(SEED + clients);
  const times = new Map<string, number[]>(mix.map(([, name]) => [name, []]));
  const all: number[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  let rateLimited = 0;
  let counter = 0;
  const deadline = performance.now() + seconds * 1000;
  const lane = async () => {
    while (performance.now() < deadline) {
      let roll = random();
      let chosen = mix[0] as (typeof mix)[number];
      for (const entry of mix) {
        if (roll < entry[0]) {
          chosen = entry;
          break;
        }
        roll -= entry[0];
      }
      const i = counter++;
      const started = performance.now();
      try {
        await chosen[2](i);
        const ms = performance.now() - started;
        times.get(chosen[1])?.push(ms);
        all.push(ms);
      } catch (error) {
        if (error instanceof MemError && error.code === 'RATE_LIMITED') {
          // A well-behaved client waits as told (Retry-After is at least 1 s) before its next request.
          rateLimited += 1;
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        errors += 1;
        if (errorSamples.length < 5) errorSamples.push(`${chosen[1]}: ${(error as Error).message}`);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, lane));
  const elapsed = (performance.now() - started) / 1000;
  return {
    clients,
    seconds: round(elapsed, 1),
    requests: all.length + errors + rateLimited,
    requestsPerSecond: round(all.length / elapsed, 1),
    errors,
    rateLimited,
    errorSamples,
    p50Ms: round(percentile(all, 50), 1),
    p99Ms: round(percentile(all, 99), 1),
    byOperation: Object.fromEntries(
      [...times].map(([name, values]) => [name, { count: values.length, p50Ms: round(percentile(values, 50), 1), p99Ms: round(percentile(values, 99), 1) }]),
    ),
  };
}

// ---- disk, cold start ----------------------------------------------------------------------------------------

function directoryBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) total += directoryBytes(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

/** Bytes of the current version of every table (LanceDB's table statistics), indexes not included. */
async function liveTableBytes(uri: string): Promise<number> {
  const db = await lancedb.connect(uri);
  try {
    let total = 0;
    for (const name of await db.tableNames()) {
      const table = await db.openTable(name);
      total += (await table.stats()).totalBytes;
      table.close();
    }
    return total;
  } finally {
    db.close();
  }
}

// ---- the benchmark ----------------------------------------------------------------------------------------------

interface SizeFigures {
  readonly memories: number;
  readonly load: LoadFigures;
  readonly sequential: Record<string, Summary>;
  readonly inProcess: Record<string, Summary>;
  /** p50 over HTTP / p50 in-process, per search kind (target <= 1.25). */
  readonly httpOverInProcess: Record<string, number>;
  readonly concurrency: ConcurrencyFigures[];
  /** Right after the one-at-a-time operations (which end with saves: the extraction thread is up). */
  readonly rssMb: number;
  /**
   * After REST_MS more without requests: the extraction thread (1 minute idle) and any extra embedding
   * worker (30 s) have stopped. A daemon at rest between a user's requests.
   */
  readonly rssAtRestMb: number;
  /** Right after the concurrency runs (extra embedding workers still up; they stop after 30 s idle). */
  readonly rssAfterConcurrencyMb: number;
  readonly peakRssMb: number;
  /**
   * The data directory as it is (old versions younger than 10 minutes are kept for readers in flight, so
   * right after a load it holds several), and the live data: the current version of every table.
   */
  readonly disk: { readonly bytes: number; readonly bytesPerMemory: number; readonly liveBytes: number; readonly liveBytesPerMemory: number };
  readonly coldStart: { readonly toHealthMs: number; readonly toFirstSearchMs: number };
}

export async function runScale(options: ScaleOptions = {}): Promise<BenchResult> {
  const started = Date.now();
  const quick = options.quick ?? false;
  const sizes = options.sizes ?? (quick ? [2000] : [10_000, 100_000]);
  const timedCount = quick ? 50 : 200;
  const warmUp = 5;
  const concurrencySeconds = quick ? 10 : 60;
  const file = cacheFile();
  const cache = options.cache === false ? new Map<string, CachedPassage[]>() : await readCache(file);
  process.stderr.write(`  vector cache: ${file} (${cache.size} memories)\n`);

  const stream = createMemoryStream(SEED);
  const queries = createNoteGenerator(SEED + 7);
  const writes = createNoteGenerator(SEED + 11);
  const daemon = await startDaemon({ timeoutMs: 600_000 });
  const results: SizeFigures[] = [];
  const loadedIds: string[] = [];
  try {
    const profile = await daemon.client.profile();
    const tenant = profile.profile.id;
    for (const size of sizes) {
      const batch: Generated[] = [];
      while (loadedIds.length + batch.length < size) batch.push(stream());
      process.stderr.write(`  loading ${batch.length} memories (to ${size})\n`);
      const loaded = await load(daemon, batch, cache);
      for (const item of batch) loadedIds.push(item.id);
      if (options.cache !== false && loaded.fromCache < batch.length) {
        const added = await fillCache(daemon, file, new Set(batch.map((item) => item.id)), cache);
        process.stderr.write(`  cached the vectors of ${added} memories\n`);
      }
      const compactionSeconds = await daemon.compact();
      const loadFigures: LoadFigures = {
        memories: batch.length,
        seconds: round(loaded.seconds, 1),
        memoriesPerSecond: round(batch.length / loaded.seconds, 1),
        fromCache: loaded.fromCache,
        compactionSeconds: round(compactionSeconds, 1),
      };

      const top = await daemon.client.entities({ limit: 1 });
      const centre = top.entities[0]?.name ?? '';
      const work = workload(daemon, queries, timedCount, centre, loadedIds);
      const sequential: Record<string, Summary> = {};
      for (const [name, { queries: list, hybrid, filtered }] of Object.entries(work.searches)) {
        process.stderr.write(`  ${size}: ${name}\n`);
        sequential[name] = await timeSequential(
          { name, run: (i) => daemon.client.search(searchBody(i < 0 ? `warm-up ${name} ${i}` : (list[i] as string), hybrid, filtered, Math.max(0, i))) },
          list.length,
          warmUp,
        );
      }
      // In-process, on the same tables in the same state: the daemon stops (one writer per data directory),
      // the same searches run here, and the daemon starts again for the rest.
      process.stderr.write(`  ${size}: the same searches in-process\n`);
      await daemon.halt();
      const inProcess = await searchInProcessChild(daemon.home, tenant, work.searches, warmUp);
      await daemon.restart();

      for (const op of work.ops) {
        process.stderr.write(`  ${size}: ${op.name}\n`);
        sequential[op.name] = await timeSequential(op, op.name === 'usage' || op.name === 'graph depth 3' ? Math.min(50, timedCount) : timedCount, warmUp);
      }
      process.stderr.write(`  ${size}: saves\n`);
      sequential['save (standard)'] = await timeSequential(
        { name: 'save', run: () => daemon.client.save({ content: writes.note().content, tags: ['bench-save'] }) },
        Math.min(100, timedCount),
        warmUp,
      );
      sequential['turbo save'] = await timeSequential(
        { name: 'turbo save', run: () => daemon.client.turboSave({ content: writes.note().content, tags: ['bench-save'] }) },
        Math.min(100, timedCount),
        warmUp,
      );

      // One request at a time needs one embedding worker; the concurrency runs start the others.
      const rssMb = round(daemon.rssMb(), 0);
      process.stderr.write(`  ${size}: ${REST_MS / 1000} s without requests\n`);
      await new Promise((resolve) => setTimeout(resolve, REST_MS));
      const rssAtRestMb = round(daemon.rssMb(), 0);
      const concurrencyFigures: ConcurrencyFigures[] = [];
      for (const clients of [16, 64]) {
        process.stderr.write(`  ${size}: ${clients} concurrent clients for ${concurrencySeconds} s\n`);
        concurrencyFigures.push(await concurrency(daemon, clients, concurrencySeconds, queries, writes, loadedIds));
      }
      const rssAfterConcurrencyMb = round(daemon.rssMb(), 0);
      const peakRssMb = round(daemon.peakRssMb(), 0);

      await daemon.halt();
      const bytes = directoryBytes(join(daemon.home, 'data'));
      const liveBytes = await liveTableBytes(join(daemon.home, 'data', 'lancedb'));
      const total = await daemon.coldStart(() => daemon.client.search({ query: queries.query(), limit: 10 }));
      const count = (await daemon.client.listMemories({ limit: 1 })).pagination.total;

      results.push({
        memories: count,
        load: loadFigures,
        sequential,
        inProcess,
        httpOverInProcess: Object.fromEntries(
          Object.keys(inProcess).map((name) => [name, round((sequential[name]?.p50 ?? Number.NaN) / (inProcess[name]?.p50 ?? Number.NaN), 2)]),
        ),
        concurrency: concurrencyFigures,
        rssMb,
        rssAtRestMb,
        rssAfterConcurrencyMb,
        peakRssMb,
        disk: { bytes, bytesPerMemory: Math.round(bytes / count), liveBytes, liveBytesPerMemory: Math.round(liveBytes / count) },
        coldStart: { toHealthMs: round(total.toHealthMs, 0), toFirstSearchMs: round(total.toFirstAnswerMs, 0) },
      });
    }
  } finally {
    await daemon.stop();
  }
  return report(results, quick, (Date.now() - started) / 1000);
}

function report(results: readonly SizeFigures[], quick: boolean, seconds: number): BenchResult {
  const sizes = results.map((r) => r.memories);
  const header = ['operation', ...sizes.flatMap((n) => [`p50 @${n}`, `p95`, `p99`])];
  const names = [...new Set(results.flatMap((r) => Object.keys(r.sequential)))];
  const latency: Table = {
    title: 'HTTP latency, one request at a time (ms)',
    header,
    rows: names.map((name) => [
      name,
      ...results.flatMap((r): (string | number)[] => {
        const s = r.sequential[name];
        return s ? [s.p50, s.p95, s.p99] : ['-', '-', '-'];
      }),
    ]),
  };
  const inProcess: Table = {
    title: 'search: HTTP vs the same query in-process (p50 ms, ratio; target <= 1.25)',
    header: ['search', ...sizes.flatMap((n) => [`HTTP @${n}`, 'in-process', 'ratio'])],
    rows: Object.keys(results[0]?.inProcess ?? {}).map((name) => [
      name,
      ...results.flatMap((r): (string | number)[] => [r.sequential[name]?.p50 ?? '-', r.inProcess[name]?.p50 ?? '-', r.httpOverInProcess[name] ?? '-']),
    ]),
  };
  const concurrencyTable: Table = {
    title: 'concurrent clients (mixed reads and writes)',
    header: ['memories', 'clients', 'seconds', 'req/s', 'p50 ms', 'p99 ms', 'errors', '429s'],
    rows: results.flatMap((r) => r.concurrency.map((c) => [r.memories, c.clients, c.seconds, c.requestsPerSecond, c.p50Ms, c.p99Ms, c.errors, c.rateLimited])),
  };
  const resources: Table = {
    title: 'load, memory, disk, cold start',
    header: ['memories', 'loaded/s', 'from cache', 'compaction s', 'RSS MB', 'RSS at rest', 'RSS after concurrency', 'peak RSS MB', 'disk MB', 'bytes/memory', 'live bytes/memory', 'cold start ms (health / first search)'],
    rows: results.map((r) => [
      r.memories,
      r.load.memoriesPerSecond,
      r.load.fromCache,
      r.load.compactionSeconds,
      r.rssMb,
      r.rssAtRestMb,
      r.rssAfterConcurrencyMb,
      r.peakRssMb,
      round(r.disk.bytes / 1024 / 1024, 1),
      r.disk.bytesPerMemory,
      r.disk.liveBytesPerMemory,
      `${r.coldStart.toHealthMs} / ${r.coldStart.toFirstSearchMs}`,
    ]),
  };
  return {
    name: 'scale',
    quick,
    seconds: Math.round(seconds),
    figures: { sizes: results },
    tables: [latency, inProcess, concurrencyTable, resources],
    notes: [
      'Latencies are client-side wall times over HTTP on the same 2-core machine as the daemon; the load generator shares the cores.',
      'Loaded memories per second counts the daemon embedding them unless they came from the vector cache.',
    ],
  };
}

const inProcessRequest = process.env[IN_PROCESS_REQUEST];
if (isMain(import.meta.url) && inProcessRequest) {
  const request = JSON.parse(readFileSync(inProcessRequest, 'utf8')) as {
    home: string;
    tenant: string;
    searches: Workload['searches'];
    warmUp: number;
    answer: string;
  };
  writeFileSync(request.answer, JSON.stringify(await searchInProcess(request.home, request.tenant, request.searches, request.warmUp)));
  process.exit(0);
} else if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, sizes: { type: 'string' }, 'no-cache': { type: 'boolean', default: false } },
  });
  const sizes = values.sizes?.split(',').map((value) => Number(value.trim()));
  finishStandalone(await measure(() => runScale({ quick: values.quick, sizes, cache: !values['no-cache'] })));
}
