/**
 * Structured query benchmark (POST /v1/query's QueryService), in-process on a temporary LanceDB directory,
 * at 10k and 100k memories (quick: 10k only).
 *
 * Memories are written through the store with random 16-d unit vectors: embedding is not what is measured,
 * and this loads 100k rows in well under a minute. Each memory has realistic tags (bench/lib/notes.ts), a
 * spaceId, createdAt spread uniformly over the last two years (a fifth also updated within 30 days), and
 * metadata {priority 0-5, status todo|doing|done, owner: a name}. After loading, the store runs its
 * maintenance pass (compaction, indexes), as the daemon does every few minutes.
 *
 * Then, one query at a time (limit 20, default sort unless said), WARM_UP untimed and TIMED timed runs of
 * each kind; values rotate between runs so no two consecutive queries are the same:
 *   tag filter          {"tags": T}                                    inside LanceDB
 *   date range          {"createdAt": {"$gte": D, "$lt": D + 30 days}} inside LanceDB
 *   tag + date, sorted  tag, 90-day range, sort {"updatedAt": -1}      inside LanceDB
 *   metadata filter     {"metadata.status": S, "metadata.priority": {"$gte": P}}   scan + evaluator
 *   metadata (number)   {"metadata.priority": {"$gte": P}}: no text prefilter, every row is parsed
 *   tag + metadata      {"tags": T, "metadata.owner": O}               LanceDB prefilter + evaluator
 *   aggregation         countByTag + createdAt week histogram over a 6-month range
 *   aggregation, all    the same over every memory
 * and pages of GET /v1/memories (the store's list, newest first: every memory, and a tag), each timed
 * against the same page read as one LanceDB query of every column (how list read it before `list` read
 * the sort keys first), as A B pairs on the same offsets; the offsets move on, so the row cache rarely holds a page.
 * Last, a folder's first scan looking up a batch of 128 paths (findManyByMetadata, a new folder each time, so
 * nothing is found), against the same lookup without the paths' common prefix asked first, as A B pairs.
 *
 *   node --import tsx bench/query.ts [--quick]
 */
import * as lancedb from '@lancedb/lancedb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { newId } from '../src/core/ids.js';
import { MemoryService } from '../src/core/memory-service.js';
import type { Storage } from '../src/core/ports.js';
import { QueryService, type QueryInput, type QueryStrategy } from '../src/core/query-service.js';
import type { MemoryFilter, MemoryRecord } from '../src/core/types.js';
import type { EmbeddingModel } from '../src/providers/spec.js';
import { openLanceStore } from '../src/store/lancedb/lancedb-store.js';
import { and, arrayHasAny, contains, eq, or } from '../src/store/lancedb/predicate.js';
import { createNoteGenerator, createRandom } from './lib/notes.js';
import { progress, runPool } from './lib/pool.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { latencyFigures, round, throughput, timed, type Summary } from './lib/stats.js';

const DIMENSION = 16;
const ACCOUNT = 'usr_bench';
const TIMED = 50;
const WARM_UP = 5;
const LOAD_IN_FLIGHT = 2000;
const SEED = 20250105;
const DAY = 86_400_000;
const SPAN = 730 * DAY;
const SPACES = ['', '', 'work', 'work', 'personal', 'research', 'travel'];
const STATUSES = ['todo', 'doing', 'done'];
const OWNERS = ['Alice Martin', 'Bruno Costa', 'Chiara Rossi', 'Dmitri Volkov', 'Emeka Okafor', 'Fatima Zahra', 'Gustav Lind', 'Hana Suzuki'];
/** Tags the generator gives often (kinds) and less often (topics, companies). */
const TAGS = ['meeting', 'todo', 'idea', 'travel', 'reading', 'roadmap', 'hiring', 'acme', 'globex', 'security'];

export interface QueryBenchOptions {
  readonly quick?: boolean;
  readonly sizes?: readonly number[];
}

interface Kind {
  readonly name: string;
  readonly where: string;
  readonly input: (i: number) => QueryInput;
}

interface KindFigures {
  readonly ms: Summary;
  readonly strategy: QueryStrategy;
  /** Mean number of matches (total) over the timed runs. */
  readonly meanTotal: number;
}

interface ListFigures {
  /** store.list: the sort keys of the matches, then the page's rows by id. */
  readonly twoReads: Summary;
  /** The same page as one LanceDB query: every column of every match sorted. */
  readonly oneQuery: Summary;
  readonly meanTotal: number;
}

interface LookupFigures {
  /** store.findManyByMetadata: the paths' common prefix, then each path. */
  readonly withPrefix: Summary;
  /** The same paths as one LanceDB query of each path alone (how the lookup read before the prefix). */
  readonly pathsAlone: Summary;
}

interface SizeFigures {
  readonly memories: number;
  readonly load: { readonly seconds: number; readonly rowsPerSecond: number; readonly maintenanceSeconds: number };
  readonly queries: Record<string, KindFigures>;
  readonly lists: Record<string, ListFigures>;
  readonly lookup: LookupFigures;
}

/** Paths of a first-scan batch (ingest's file batches). */
const LOOKUP_PATHS = 128;

/** A B pairs: a batch of a new folder's paths looked up by the store, and by the query it made before; neither finds any. */
async function measureLookup(storage: Storage, table: lancedb.Table): Promise<LookupFigures> {
  const store = storage.memories(ACCOUNT);
  const withPrefix: number[] = [];
  const pathsAlone: number[] = [];
  for (let i = -WARM_UP; i < TIMED; i++) {
    const paths = Array.from({ length: LOOKUP_PATHS }, (_, n) => `/home/someone/notes-${i + WARM_UP}/note-${n}.md`);
    const a = await timed(() => store.findManyByMetadata('sourcePath', paths));
    const where = and(eq('account_id', ACCOUNT), or(...paths.map((path) => contains('metadata', `"sourcePath":${JSON.stringify(path)}`))));
    const b = await timed(() => table.query().where(where).limit(50 * LOOKUP_PATHS).toArray());
    if (a.value.size !== 0 || b.value.length !== 0) throw new Error('a lookup of a new folder found memories');
    if (i < 0) continue;
    withPrefix.push(a.ms);
    pathsAlone.push(b.ms);
  }
  return { withPrefix: latencyFigures(withPrefix), pathsAlone: latencyFigures(pathsAlone) };
}

const LISTS: readonly { readonly name: string; readonly filter: (i: number) => MemoryFilter }[] = [
  { name: 'list, every memory', filter: () => ({}) },
  { name: 'list, a tag', filter: (i) => ({ tags: [TAGS[(i + WARM_UP) % TAGS.length] as string] }) },
];

/** A B pairs: the store's list, and the same page as the one query list used to be; the pages must agree. */
async function measureList(storage: Storage, table: lancedb.Table, filter: (i: number) => MemoryFilter): Promise<ListFigures> {
  const store = storage.memories(ACCOUNT);
  const twoReads: number[] = [];
  const oneQuery: number[] = [];
  let totals = 0;
  for (let i = -WARM_UP; i < TIMED; i++) {
    const wanted = filter(i);
    // Every (filter, page) once: pages of all memories in order, and each tag's first pages in turn.
    const page = { limit: 20, offset: wanted.tags ? Math.floor((i + WARM_UP) / TAGS.length) * 20 : (i + WARM_UP) * 20 };
    const a = await timed(() => store.list(wanted, page));
    const where = and(eq('account_id', ACCOUNT), wanted.tags ? arrayHasAny('tags', wanted.tags) : undefined);
    const b = await timed(() =>
      table
        .query()
        .where(where)
        .orderBy([{ columnName: 'created_at', ascending: false }, { columnName: 'id', ascending: false }])
        .offset(page.offset)
        .limit(page.limit)
        .toArray(),
    );
    const same = a.value.items.map((memory) => memory.id).join() === b.value.map((row) => String(row['id'])).join();
    if (!same) throw new Error('the store listed another page than the one query');
    if (i < 0) continue;
    twoReads.push(a.ms);
    oneQuery.push(b.ms);
    totals += a.value.total;
  }
  return { twoReads: latencyFigures(twoReads), oneQuery: latencyFigures(oneQuery), meanTotal: Math.round(totals / TIMED) };
}

/** Only queries with text would embed; none here do. */
const noEmbedder: EmbeddingModel = {
  provider: 'none',
  modelId: 'bench/random',
  dimension: DIMENSION,
  maxEmbeddingsPerCall: 1,
  init: async () => undefined,
  doEmbed: async () => {
    throw new Error('the query benchmark never embeds');
  },
  close: async () => undefined,
};

function kinds(now: number): Kind[] {
  const pick = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;
  const iso = (ms: number) => new Date(ms).toISOString();
  const windowStart = (i: number, days: number) => now - SPAN + ((i * 37) % (730 - days)) * DAY;
  return [
    {
      name: 'tag filter',
      where: 'lancedb',
      input: (i) => ({ filters: { tags: pick(TAGS, i) }, limit: 20, offset: 0 }),
    },
    {
      name: 'date range (30 days)',
      where: 'lancedb',
      input: (i) => ({ filters: { createdAt: { $gte: iso(windowStart(i, 30)), $lt: iso(windowStart(i, 30) + 30 * DAY) } }, limit: 20, offset: 0 }),
    },
    {
      name: 'tag + date, sort updatedAt',
      where: 'lancedb',
      input: (i) => ({
        filters: { tags: pick(TAGS, i), createdAt: { $gte: iso(windowStart(i, 90)), $lt: iso(windowStart(i, 90) + 90 * DAY) } },
        sort: { updatedAt: -1 },
        limit: 20,
        offset: 0,
      }),
    },
    {
      name: 'metadata filter',
      where: 'scan',
      input: (i) => ({ filters: { 'metadata.status': pick(STATUSES, i), 'metadata.priority': { $gte: i % 6 } }, limit: 20, offset: 0 }),
    },
    {
      name: 'metadata filter (number)',
      where: 'scan',
      input: (i) => ({ filters: { 'metadata.priority': { $gte: 3 + (i % 3) } }, limit: 20, offset: 0 }),
    },
    {
      name: 'tag + metadata filter',
      where: 'scan',
      input: (i) => ({ filters: { tags: pick(TAGS, i), 'metadata.owner': pick(OWNERS, i) }, limit: 20, offset: 0 }),
    },
    {
      name: 'aggregation (6 months)',
      where: 'lancedb',
      input: (i) => ({
        filters: { createdAt: { $gte: iso(windowStart(i, 182)), $lt: iso(windowStart(i, 182) + 182 * DAY) } },
        limit: 20,
        offset: 0,
        aggregate: { countByTag: true, dateHistogram: { field: 'createdAt', interval: 'week' } },
      }),
    },
    {
      name: 'aggregation (all)',
      where: 'lancedb',
      input: () => ({ limit: 20, offset: 0, aggregate: { countByTag: true, dateHistogram: { field: 'createdAt', interval: 'week' } } }),
    },
  ];
}

function unitVector(random: () => number): Float32Array {
  const vector = new Float32Array(DIMENSION).map(() => random() - 0.5);
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

async function load(storage: Storage, count: number, now: number, random: () => number, notes: ReturnType<typeof createNoteGenerator>) {
  const store = storage.memories(ACCOUNT);
  const bar = progress(`load ${count}`, count);
  const items = Array.from({ length: count }, () => {
    const note = notes.note();
    const createdAt = Math.floor(now - random() * SPAN);
    const memory: MemoryRecord = {
      id: newId('memory', createdAt),
      title: note.content.split('. ')[0]?.slice(0, 80) ?? '',
      content: note.content,
      description: '',
      context: '',
      author: '',
      tags: note.tags,
      metadata: {
        priority: Math.floor(random() * 6),
        status: STATUSES[Math.floor(random() * STATUSES.length)],
        owner: OWNERS[Math.floor(random() * OWNERS.length)],
      },
      spaceId: SPACES[Math.floor(random() * SPACES.length)] ?? '',
      createdAt,
      updatedAt: random() < 0.2 ? Math.min(now, createdAt + Math.floor(random() * 30 * DAY)) : null,
      contentHash: String(createdAt),
      turbo: false,
    };
    return { memory, vector: unitVector(random) };
  });
  const loaded = await timed(() =>
    runPool(items, LOAD_IN_FLIGHT, async ({ memory, vector }) => {
      await store.insert(memory, [{ seq: 0, text: memory.title, vector }]);
      bar.tick();
    }),
  );
  bar.done();
  const maintained = await timed(() => storage.maintain());
  return { ms: loaded.ms, maintenanceMs: maintained.ms };
}

async function measureKind(service: QueryService, kind: Kind): Promise<KindFigures> {
  for (let i = 0; i < WARM_UP; i++) await service.run(ACCOUNT, kind.input(i + 1000));
  const latencies: number[] = [];
  let totals = 0;
  let strategy: QueryStrategy = 'lancedb';
  for (let i = 0; i < TIMED; i++) {
    const { value, ms } = await timed(() => service.run(ACCOUNT, kind.input(i)));
    latencies.push(ms);
    totals += value.total;
    strategy = value.strategy;
  }
  if (strategy !== kind.where) throw new Error(`${kind.name} ran as ${strategy}, expected ${kind.where}`);
  return { ms: latencyFigures(latencies), strategy, meanTotal: Math.round(totals / TIMED) };
}

export async function runQueryBench(options: QueryBenchOptions = {}): Promise<BenchResult> {
  const quick = options.quick ?? false;
  const sizes = options.sizes ?? (quick ? [10_000] : [10_000, 100_000]);
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-query-'));
  const storage = await openLanceStore({ uri: dir, vectorSpace: { modelId: noEmbedder.modelId, dimension: DIMENSION } });
  const service = new QueryService({ storage, memories: new MemoryService({ storage, embedder: noEmbedder }) });
  const random = createRandom(SEED);
  const notes = createNoteGenerator(SEED);
  const now = Date.now();
  const perSize: SizeFigures[] = [];
  try {
    let stored = 0;
    for (const size of sizes) {
      const added = size - stored;
      const { ms, maintenanceMs } = await load(storage, added, now, random, notes);
      stored = size;
      const count = await storage.memories(ACCOUNT).count();
      if (count !== size) throw new Error(`the store holds ${count} memories, expected ${size}`);
      const queries: Record<string, KindFigures> = {};
      for (const kind of kinds(now)) {
        process.stderr.write(`  ${size}: ${kind.name}\n`);
        queries[kind.name] = await measureKind(service, kind);
      }
      const lists: Record<string, ListFigures> = {};
      // A connection of its own, opened after the load, reads the table as the store wrote it.
      const table = await (await lancedb.connect(dir)).openTable('memories');
      let lookup: LookupFigures;
      try {
        for (const list of LISTS) {
          process.stderr.write(`  ${size}: ${list.name}\n`);
          lists[list.name] = await measureList(storage, table, list.filter);
        }
        process.stderr.write(`  ${size}: a first scan's lookup of ${LOOKUP_PATHS} paths\n`);
        lookup = await measureLookup(storage, table);
      } finally {
        table.close();
      }
      perSize.push({
        memories: size,
        lists,
        lookup,
        load: { seconds: round(ms / 1000, 1), rowsPerSecond: round(throughput(added, ms), 0), maintenanceSeconds: round(maintenanceMs / 1000, 1) },
        queries,
      });
    }
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const label = (n: number) => `${n / 1000}k`;
  const names = kinds(now).map((kind) => kind.name);
  return {
    name: 'query',
    quick,
    seconds: (Date.now() - started) / 1000,
    figures: {
      method: {
        inProcess: true,
        vectors: `random unit vectors, ${DIMENSION}-d`,
        timedQueries: TIMED,
        warmUp: WARM_UP,
        limit: 20,
        targetsAt100k: { builtInFiltersP50Ms: 50, metadataFilterP50Ms: 250 },
      },
      sizes: Object.fromEntries(perSize.map((size) => [label(size.memories), size])),
    },
    tables: [
      {
        title: 'Structured query latency (ms; QueryService in-process on LanceDB; one query at a time; limit 20)',
        header: ['query', 'runs in', ...perSize.flatMap((size) => [`${label(size.memories)} p50`, `${label(size.memories)} p95`, `${label(size.memories)} matches`])],
        rows: names.map((name) => [
          name,
          perSize[0]?.queries[name]?.strategy ?? '-',
          ...perSize.flatMap((size) => {
            const figures = size.queries[name];
            return [figures?.ms.p50 ?? Number.NaN, figures?.ms.p95 ?? Number.NaN, figures?.meanTotal ?? Number.NaN];
          }),
        ]),
      },
      {
        title: 'Pages of GET /v1/memories (ms; the store\'s list against the same page as one LanceDB query of every column; A B pairs; limit 20)',
        header: ['list', ...perSize.flatMap((size) => [`${label(size.memories)} p50`, `${label(size.memories)} one query p50`, `${label(size.memories)} one query / list`, `${label(size.memories)} matches`])],
        rows: LISTS.map(({ name }) => [
          name,
          ...perSize.flatMap((size) => {
            const figures = size.lists[name];
            return [figures?.twoReads.p50 ?? Number.NaN, figures?.oneQuery.p50 ?? Number.NaN, figures ? round(figures.oneQuery.p50 / figures.twoReads.p50, 2) : Number.NaN, figures?.meanTotal ?? Number.NaN];
          }),
        ]),
      },
      {
        title: `A first scan's lookup of ${LOOKUP_PATHS} paths of a new folder (ms; the store, the paths' common prefix first, against each path alone; A B pairs)`,
        header: ['memories', 'store p50', 'store p95', 'each path alone p50', 'each path alone p95', 'alone / store'],
        rows: perSize.map((size) => [label(size.memories), size.lookup.withPrefix.p50, size.lookup.withPrefix.p95, size.lookup.pathsAlone.p50, size.lookup.pathsAlone.p95, round(size.lookup.pathsAlone.p50 / size.lookup.withPrefix.p50, 2)]),
      },
      {
        title: 'Loading (store.insert with group commit, then one maintenance pass)',
        header: ['memories', 'seconds', 'rows/s', 'maintenance s'],
        rows: perSize.map((size) => [label(size.memories), size.load.seconds, size.load.rowsPerSecond, size.load.maintenanceSeconds]),
      },
    ],
    notes: [
      `${WARM_UP} warm-up and ${TIMED} timed queries per kind and size; "matches" is the mean total of the timed queries`,
      'lancedb: filter, sort, page and count inside LanceDB; scan: LanceDB prefilter (built-in top-level conditions) then the evaluator over the metadata JSON',
      'targets at 100k (issue 5): p50 <= 50 ms with built-in field filters, <= 250 ms with a metadata filter',
    ],
  };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  finishStandalone(await measure(() => runQueryBench({ quick: values.quick })));
}
