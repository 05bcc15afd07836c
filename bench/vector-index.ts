/**
 * The vector index's probes and parts (issue #23): what a vector query costs and how close it comes to the
 * exact search, for rules of how many partitions a query probes, on the passages of a kept store
 * (bench/load.ts --home) copied to a scratch directory, in-process, no daemon.
 *
 * 1. Queries: `--queries` of load.ts's query generator (the same seed), embedded by the built-in embedder.
 * 2. At each `--sizes` (the first N passages of the kept table, or all of them): the index trained as one part
 *    (IVF_FLAT, cosine, the store's partitions for N), then each query one at a time as the daemon asks it
 *    (`nearestTo(v).distanceType('cosine')`, 50 deep): plain (the account filter after the search, as an
 *    account-only search goes) and tag-filtered (one of three tags, filtered first, as a tag search goes).
 *    Per rule: the process's CPU per query (every thread; the embedder is closed by then) over `--rounds`
 *    rounds, and recall@10 and @50 against the exact search (`bypassVectorIndex`).
 * 3. At the largest size: delta parts added as the daemon's compactions add them (20 commits of 1-2 passages
 *    then `optimize()`, repeated), and the store's rule measured at 1, 2, 4 and 8 parts (`--parts`), against
 *    LanceDB's default probes.
 *
 *   node --import tsx bench/vector-index.ts [--home /tmp/h23-store-100k] [--sizes 50000,100000] [--queries 48] [--rounds 2] [--parts 1,2,4,8]
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import type { Table as LanceTable } from '@lancedb/lancedb';
import { BuiltinEmbeddingModel } from '../src/providers/builtin/builtin-embedding-model.js';
import { embedMany } from '../src/providers/embed-many.js';
import { and, arrayHasAny, eq } from '../src/store/lancedb/predicate.js';
import { vectorIndexPartitions, vectorIndexStats, vectorProbes, type VectorProbes } from '../src/store/lancedb/vector-index.js';
import { keptPassagesTable } from './lib/kept-store.js';
import { createNoteGenerator } from './lib/notes.js';
import { finishStandalone, isMain, measure, type BenchResult, type Table } from './lib/report.js';
import { round } from './lib/stats.js';

/** load.ts's query seed: the same queries its searches send. */
const QUERY_SEED = 20261124 + 7;
const DEPTH = 50;
const TAGS = ['meeting', 'todo', 'idea'];
const COLUMNS = ['memory_id', 'seq', '_distance'];

type Row = Record<string, unknown>;

/** This share of the partitions and no more (LanceDB's nprobes). */
const bounded = (partitions: number, divisor: number): VectorProbes => ({ minimum: Math.ceil(partitions / divisor), maximum: Math.ceil(partitions / divisor) });
/** At least this share, more while a filter leaves too few rows in them. */
const expanding = (partitions: number, divisor: number): VectorProbes => ({ minimum: Math.ceil(partitions / divisor), maximum: partitions });

interface Rule {
  readonly name: string;
  /** Probes for an index of this many partitions; null: LanceDB's default. */
  readonly probes: (partitions: number, prefiltered: boolean) => VectorProbes | null;
}

const RULES: readonly Rule[] = [
  { name: 'default (20)', probes: () => null },
  { name: 'P/8', probes: (p) => bounded(p, 8) },
  { name: 'P/4', probes: (p) => bounded(p, 4) },
  { name: 'P/3', probes: (p) => bounded(p, 3) },
  { name: 'P/2', probes: (p) => bounded(p, 2) },
  { name: 'P (every partition)', probes: (p) => bounded(p, 1) },
  { name: 'P/4, up to P', probes: (p) => expanding(p, 4) },
  { name: 'the store (vectorProbes)', probes: (p, prefiltered) => vectorProbes(p, prefiltered) },
];

interface Case {
  readonly vector: Float32Array;
  readonly where: string;
  readonly postfilter: boolean;
}

const key = (row: Row) => `${String(row['memory_id'])}#${String(row['seq'])}`;

async function search(table: LanceTable, item: Case, probes: VectorProbes | null, exact = false): Promise<string[]> {
  let query = table.query().nearestTo(item.vector).distanceType('cosine').where(item.where);
  // As the store asks them (see VectorSearchBatcher.query).
  if (probes !== null) query = probes.minimum === probes.maximum ? query.nprobes(probes.minimum) : query.maximumNprobes(probes.maximum).minimumNprobes(probes.minimum);
  if (exact) query = query.bypassVectorIndex();
  const rows = (await (item.postfilter ? query.postfilter() : query).select(COLUMNS).limit(DEPTH).toArray()) as Row[];
  return rows.map(key);
}

function recall(found: readonly string[], truth: readonly string[], k: number): number {
  const wanted = new Set(truth.slice(0, k));
  if (wanted.size === 0) return 1;
  return found.slice(0, k).filter((id) => wanted.has(id)).length / wanted.size;
}

/** CPU ms per query over each round, and mean recall@10 / @50. */
async function measureRule(table: LanceTable, cases: readonly Case[], truth: readonly string[][], probes: (prefiltered: boolean) => VectorProbes | null, rounds: number) {
  const cpu: number[] = [];
  let found: string[][] = [];
  for (let r = 0; r < rounds; r++) {
    found = [];
    const before = process.cpuUsage();
    for (const item of cases) found.push(await search(table, item, probes(!item.postfilter)));
    const used = process.cpuUsage(before);
    cpu.push(round((used.user + used.system) / 1000 / cases.length, 1));
  }
  const mean = (values: number[]) => round(values.reduce((a, b) => a + b, 0) / values.length, 3);
  return {
    cpuMs: cpu,
    recall10: mean(found.map((rows, i) => recall(rows, truth[i] ?? [], 10))),
    recall50: mean(found.map((rows, i) => recall(rows, truth[i] ?? [], 50))),
  };
}

async function addDeltaPart(table: LanceTable, sample: readonly Row[], next: () => number): Promise<void> {
  for (let commit = 0; commit < 20; commit++) {
    const rows = Array.from({ length: 1 + (commit % 2) }, () => {
      const n = next();
      const source = sample[n % sample.length] as Row;
      const vector = Array.from(source['vector'] as ArrayLike<number>, (x, i) => x + 0.01 * Math.sin(n * 31 + i));
      const plain = Object.fromEntries(
        Object.entries(source).map(([name, value]) => [name, typeof value === 'object' && value !== null && Symbol.iterator in value ? Array.from(value as Iterable<unknown>) : value]),
      );
      return { ...plain, memory_id: `bench-delta-${n}`, vector };
    });
    await table.add(rows);
  }
  await table.optimize({ cleanupOlderThan: new Date(Date.now() - 10 * 60_000) });
}

export async function runVectorIndexBench(options: { home?: string; sizes?: number[]; queries?: number; rounds?: number; parts?: number[] } = {}): Promise<BenchResult> {
  const started = Date.now();
  const home = options.home ?? '/tmp/h23-store-100k';
  const rounds = options.rounds ?? 2;
  const kept = keptPassagesTable(home);
  const source = kept.source;
  const tableName = kept.name.replace(/\.lance$/, '');
  const scratch = mkdtempSync(join(tmpdir(), 'mem-bench-vector-index-'));
  const tables: Table[] = [];
  const figures: Record<string, unknown> = {};
  try {
    process.stderr.write(`  copying ${tableName} to ${scratch}\n`);
    cpSync(join(source, `${tableName}.lance`), join(scratch, `${tableName}.lance`), { recursive: true });
    const db = await lancedb.connect(scratch);
    const full = await db.openTable(tableName);
    const total = await full.countRows();
    const account = String(((await full.query().select(['account_id']).limit(1).toArray()) as Row[])[0]?.['account_id']);
    const queries = createNoteGenerator(QUERY_SEED);
    const texts = Array.from({ length: options.queries ?? 48 }, () => queries.query());
    const embedder = new BuiltinEmbeddingModel(1);
    const vectors = await embedMany(embedder, texts);
    await embedder.close();
    const cases = {
      plain: vectors.map((vector) => ({ vector, where: eq('account_id', account), postfilter: true })),
      tagged: vectors.map((vector, i) => ({ vector, where: and(eq('account_id', account), arrayHasAny('tags', [TAGS[i % TAGS.length] as string])), postfilter: false })),
    };
    const sizes = (options.sizes ?? [50_000, total]).map((size) => Math.min(size, total));
    for (const size of sizes) {
      let table = full;
      if (size < total) {
        process.stderr.write(`  the first ${size} passages as a table of their own\n`);
        table = await db.createTable(`first_${size}`, await full.query().limit(size).toArrow(), { mode: 'overwrite' });
      }
      const partitions = vectorIndexPartitions(size);
      process.stderr.write(`  ${size} passages: training the index as one part (${partitions} partitions)\n`);
      const trainCpu = process.cpuUsage();
      const trainStarted = Date.now();
      await table.createIndex('vector', { replace: true, config: lancedb.Index.ivfFlat({ distanceType: 'cosine', numPartitions: partitions }) });
      const trained = process.cpuUsage(trainCpu);
      figures[`train ${size}`] = { wallMs: Date.now() - trainStarted, cpuMs: round((trained.user + trained.system) / 1000, 0) };
      const truth: Record<string, string[][]> = {};
      const exactCpu: Record<string, number> = {};
      for (const [shape, list] of Object.entries(cases)) {
        const before = process.cpuUsage();
        truth[shape] = [];
        for (const item of list) truth[shape].push(await search(table, item, null, true));
        const used = process.cpuUsage(before);
        exactCpu[shape] = round((used.user + used.system) / 1000 / list.length, 1);
      }
      const rows: (string | number)[][] = [['exact (bypassVectorIndex)', '-', exactCpu['plain'] ?? '-', 1, 1, exactCpu['tagged'] ?? '-', 1, 1]];
      for (const rule of RULES) {
        const probes = (prefiltered: boolean) => rule.probes(partitions, prefiltered);
        const shown = (prefiltered: boolean) => {
          const chosen = probes(prefiltered);
          return chosen === null ? '20' : chosen.maximum === chosen.minimum ? String(chosen.minimum) : `${chosen.minimum}-${chosen.maximum}`;
        };
        process.stderr.write(`  ${size} passages, ${rule.name}\n`);
        const plain = await measureRule(table, cases.plain, truth['plain'] ?? [], probes, rounds);
        const tagged = await measureRule(table, cases.tagged, truth['tagged'] ?? [], probes, rounds);
        figures[`${size} ${rule.name}`] = { probes: { plain: probes(false), tagged: probes(true) }, plain, tagged };
        rows.push([rule.name, shown(false) === shown(true) ? shown(false) : `${shown(false)} / ${shown(true)}`, plain.cpuMs.join(' / '), plain.recall10, plain.recall50, tagged.cpuMs.join(' / '), tagged.recall10, tagged.recall50]);
      }
      tables.push({
        title: `${size} passages, one part of ${partitions} partitions (train ${String((figures[`train ${size}`] as { cpuMs: number }).cpuMs)} ms CPU): CPU ms per query per round, recall against the exact search`,
        header: ['rule', 'probes (plain / tag-filtered)', 'plain CPU ms', 'R@10', 'R@50', 'tag-filtered CPU ms', 'R@10', 'R@50'],
        rows,
      });
      if (size !== sizes[sizes.length - 1]) continue;
      // Delta parts as compactions add them, and the store's rule across them.
      const sample = (await table.query().limit(2000).toArray()) as Row[];
      let n = 0;
      const partRows: (string | number)[][] = [];
      for (const wanted of options.parts ?? [1, 2, 4, 8]) {
        for (let guard = 0; ((await vectorIndexStats(table))?.parts ?? 0) < wanted && guard < 2 * wanted; guard++) await addDeltaPart(table, sample, () => n++);
        const parts = (await vectorIndexStats(table))?.parts ?? 0;
        const probes = (prefiltered: boolean) => vectorProbes(partitions, prefiltered);
        const partTruth: Record<string, string[][]> = {};
        for (const [shape, list] of Object.entries(cases)) {
          partTruth[shape] = [];
          for (const item of list) partTruth[shape].push(await search(table, item, null, true));
        }
        const plain = await measureRule(table, cases.plain, partTruth['plain'] ?? [], probes, rounds);
        const tagged = await measureRule(table, cases.tagged, partTruth['tagged'] ?? [], probes, rounds);
        const plainDefault = await measureRule(table, cases.plain, partTruth['plain'] ?? [], () => null, rounds);
        const index = await table.indexStats(((await table.listIndices()).find((entry) => entry.columns.includes('vector')))?.name ?? '');
        const fragments = (await table.stats()).fragmentStats.numFragments;
        figures[`parts ${parts}`] = { probes: { plain: probes(false), tagged: probes(true) }, plain, tagged, plainDefault, index, fragments };
        partRows.push([parts, `${String(index?.numIndexedRows)} / ${String(index?.numUnindexedRows)}`, fragments, plain.cpuMs.join(' / '), plain.recall10, plain.recall50, tagged.cpuMs.join(' / '), tagged.recall10, tagged.recall50, plainDefault.cpuMs.join(' / '), plainDefault.recall10]);
      }
      tables.push({
        title: `${size} passages and the rows of the compactions since: the store's rule (${vectorProbes(partitions, false).minimum} probes, tag-filtered up to every partition) by index parts`,
        header: ['parts', 'rows indexed / not', 'fragments', 'plain CPU ms', 'R@10', 'R@50', 'tag-filtered CPU ms', 'R@10', 'R@50', 'default probes: plain CPU ms', 'R@10'],
        rows: partRows,
      });
    }
    db.close();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { name: 'vector-index', quick: false, seconds: round((Date.now() - started) / 1000, 1), figures, tables, notes: [`kept store: ${home}`] };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { home: { type: 'string' }, sizes: { type: 'string' }, queries: { type: 'string' }, rounds: { type: 'string' }, parts: { type: 'string' } } });
  const result = await measure(() =>
    runVectorIndexBench({
      ...(values.home ? { home: values.home } : {}),
      ...(values.sizes ? { sizes: values.sizes.split(',').map(Number) } : {}),
      ...(values.queries ? { queries: Number(values.queries) } : {}),
      ...(values.rounds ? { rounds: Number(values.rounds) } : {}),
      ...(values.parts ? { parts: values.parts.split(',').map(Number) } : {}),
    }),
  );
  finishStandalone(result);
}
