/**
 * Searches after writes (issue #23): what the passages written since the last compaction cost the searches
 * that read them, and what the store's compaction of the search tables costs to keep that down, on a copy of
 * a kept store (bench/load.ts --home), in-process, no daemon.
 *
 * The store is opened as the daemon opens it (its defaults: compaction of the search tables after 20
 * commits, paced by its rest), from this build or from another one's sources (`--root`, e.g. a worktree of
 * main), so two builds' stores meet the same workload. Then, up to each of `--writes` (cumulative): saves of
 * one passage each, one at a time, each followed by `--searches-per-write` hybrid searches (a vector query
 * and a full-text query, 50 deep, as a search of the default mode asks the store); per phase the process's
 * CPU (writes, searches and the compactions they started, every thread) and the compactions that ran. At
 * each checkpoint the passages' state (rows the vector index has not folded in, fragments) and the CPU of
 * `--alone` hybrid searches one at a time with no write between them.
 *
 *   node --import tsx bench/pending-reads.ts [--home /tmp/h23-store-100k] [--root DIR] [--writes 100,300,1000] [--searches-per-write 2] [--alone 24]
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import type { MemoryRecord } from '../src/core/types.js';
import type { openLanceStore as OpenLanceStore, SearchCompactionReport } from '../src/store/lancedb/lancedb-store.js';
import { BuiltinEmbeddingModel } from '../src/providers/builtin/builtin-embedding-model.js';
import { embedMany } from '../src/providers/embed-many.js';
import { keptPassagesTable } from './lib/kept-store.js';
import { createNoteGenerator } from './lib/notes.js';
import { finishStandalone, isMain, measure, type BenchResult, type Table } from './lib/report.js';
import { round } from './lib/stats.js';

/** load.ts's query seed: the same queries its searches send. */
const QUERY_SEED = 20261124 + 7;
const DEPTH = 50;

type Row = Record<string, unknown>;

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

export async function runPendingReadsBench(
  options: { home?: string; root?: string; writes?: number[]; searchesPerWrite?: number; alone?: number } = {},
): Promise<BenchResult> {
  const started = Date.now();
  const home = options.home ?? '/tmp/h23-store-100k';
  const root = resolve(options.root ?? join(import.meta.dirname, '..'));
  const checkpoints = options.writes ?? [100, 300, 1000];
  const perWrite = options.searchesPerWrite ?? 2;
  const alone = options.alone ?? 24;
  const { source, name: chunksDir } = keptPassagesTable(home);
  const scratch = mkdtempSync(join(tmpdir(), 'mem-bench-pending-reads-'));
  const figures: Record<string, unknown> = {};
  const rows: (string | number)[][] = [];
  try {
    // The tables a save and a search touch; the store creates the others empty.
    process.stderr.write(`  copying the memories and passages of ${home} to ${scratch}\n`);
    for (const name of ['meta.lance', 'memories.lance', chunksDir]) cpSync(join(source, name), join(scratch, name), { recursive: true });
    const queries = createNoteGenerator(QUERY_SEED);
    const texts = Array.from({ length: 48 }, () => queries.query());
    const embedder = new BuiltinEmbeddingModel(1);
    const vectors = await embedMany(embedder, texts);
    const space = { modelId: embedder.modelId, dimension: embedder.dimension };
    await embedder.close();

    const probe = await lancedb.connect(scratch);
    const chunks = await probe.openTable(chunksDir.replace(/\.lance$/, ''));
    const account = String(((await chunks.query().select(['account_id']).limit(1).toArray()) as Row[])[0]?.['account_id']);
    const sample = (await chunks.query().select(['text', 'vector']).limit(500).toArray()) as Row[];
    const vectorIndex = (await chunks.listIndices()).find((index) => index.columns.includes('vector'))?.name ?? '';
    const passagesState = async () => {
      await chunks.checkoutLatest();
      const stats = await chunks.indexStats(vectorIndex);
      return { unindexed: stats?.numUnindexedRows ?? -1, parts: stats?.numIndices ?? 0, fragments: (await chunks.stats()).fragmentStats.numFragments };
    };

    const module = (await import(pathToFileURL(join(root, 'src', 'store', 'lancedb', 'lancedb-store.ts')).href)) as { openLanceStore: typeof OpenLanceStore };
    const compactions: SearchCompactionReport[] = [];
    const errors: unknown[] = [];
    const store = await module.openLanceStore({
      uri: scratch,
      vectorSpace: space,
      onSearchTablesCompacted: (report) => compactions.push(report),
      onMaintenanceError: (error) => errors.push(error),
    });
    const records = store.memories(account);
    let q = 0;
    const search = async () => {
      const i = q++;
      await records.vectorSearch(vectors[i % vectors.length] as Float32Array, {}, DEPTH);
      await records.keywordSearch(texts[i % texts.length] as string, {}, DEPTH);
    };
    let written = 0;
    const save = async () => {
      const n = written++;
      const passage = sample[n % sample.length] as Row;
      const vector = Float32Array.from(passage['vector'] as ArrayLike<number>, (x, i) => x + 0.01 * Math.sin(n * 31 + i));
      const text = String(passage['text']);
      const memory: MemoryRecord = {
        id: `mem_bench_pending_${String(n).padStart(6, '0')}`,
        title: text.slice(0, 40),
        content: text,
        description: '',
        context: '',
        author: '',
        tags: [],
        metadata: {},
        spaceId: '',
        createdAt: Date.now(),
        updatedAt: null,
        contentHash: `bench-pending-${n}`,
        turbo: true,
      };
      await records.insert(memory, [{ seq: 0, text, vector }]);
    };

    // The searches alone on the store as kept, for the baseline.
    const measureAlone = async () => {
      const before = process.cpuUsage();
      for (let i = 0; i < alone; i++) await search();
      return round(cpuMs(before) / alone, 1);
    };
    const opened = await passagesState();
    const openedCpu = await measureAlone();
    rows.push(['opened', '-', '-', '-', '-', opened.unindexed, opened.fragments, openedCpu]);
    figures['opened'] = { ...opened, searchAloneCpuMs: openedCpu };

    for (const checkpoint of checkpoints) {
      const writes = checkpoint - written;
      if (writes <= 0) continue;
      const compactionsBefore = compactions.length;
      const before = process.cpuUsage();
      const phaseStarted = Date.now();
      for (let w = 0; w < writes; w++) {
        await save();
        for (let s = 0; s < perWrite; s++) await search();
      }
      const phaseCpu = cpuMs(before);
      const phaseWall = Date.now() - phaseStarted;
      const ran = compactions.slice(compactionsBefore);
      const state = await passagesState();
      const aloneCpu = await measureAlone();
      const compactionMs = ran.reduce((sum, report) => sum + report.durationMs, 0);
      figures[`after ${checkpoint}`] = { writes, phaseCpuMs: round(phaseCpu, 0), phaseWallMs: phaseWall, compactions: ran.length, compactionWallMs: compactionMs, ...state, searchAloneCpuMs: aloneCpu };
      rows.push([
        `after ${checkpoint} writes`,
        round(phaseCpu / (writes * perWrite), 1),
        round(phaseWall / 1000, 1),
        ran.length,
        round(compactionMs / 1000, 2),
        state.unindexed,
        state.fragments,
        aloneCpu,
      ]);
      process.stderr.write(`  ${checkpoint} writes: ${JSON.stringify(figures[`after ${checkpoint}`])}\n`);
    }
    await store.close();
    probe.close();
    if (errors.length > 0) throw new Error(`background maintenance failed: ${errors.map(String).join('; ')}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const tables: Table[] = [
    {
      title: `Saves of one passage, ${perWrite} hybrid searches after each, the store of ${root}: process CPU per search during the writes (writes and compactions included), compactions, and at each checkpoint the passages' state and ${alone} searches alone`,
      header: ['state', 'CPU ms per search during the writes', 'wall s', 'compactions', 'their wall s', 'rows not in the vector index', 'fragments', 'search alone CPU ms'],
      rows,
    },
  ];
  return { name: 'pending-reads', quick: false, seconds: round((Date.now() - started) / 1000, 1), figures, tables, notes: [`kept store: ${home}`, `store from: ${root}`] };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: { home: { type: 'string' }, root: { type: 'string' }, writes: { type: 'string' }, 'searches-per-write': { type: 'string' }, alone: { type: 'string' } },
  });
  const result = await measure(() =>
    runPendingReadsBench({
      ...(values.home ? { home: values.home } : {}),
      ...(values.root ? { root: values.root } : {}),
      ...(values.writes ? { writes: values.writes.split(',').map(Number) } : {}),
      ...(values['searches-per-write'] ? { searchesPerWrite: Number(values['searches-per-write']) } : {}),
      ...(values.alone ? { alone: Number(values.alone) } : {}),
    }),
  );
  finishStandalone(result);
}
