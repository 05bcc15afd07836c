/**
 * Retrieval quality on a BEIR-format folder (default ../shared/data/scifact, split train), through the HTTP
 * API of a real daemon with the built-in embedder.
 *
 * Every corpus document becomes one memory (title = the doc's title, content = its text, metadata {_id},
 * all in one space), saved with LOAD_CONCURRENCY in flight, then the tables are compacted as the daemon's
 * periodic maintenance would (BenchDaemon.compact()). The queries are those with at least one
 * relevant judgement in the split; each is one search with limit 100 and threshold 0, all of them in
 * semantic mode, then (after a daemon restart, which empties its query-embedding cache) all in hybrid mode,
 * one at a time. The rankings are written as runs
 * (bench/results/scifact-<mode>.json, {"<query _id>": ["<doc _id>", ...]}) and scored by
 * ../shared/tools/beir-score.mjs (nDCG@10, Recall@10, Recall@100, MRR@10), which also gives the BM25
 * baseline (title + text) on the same documents.
 *
 * Quick mode: the first QUICK_QUERIES judged queries (in qrels order) against a QUICK_DOCS-document corpus
 * made of all their relevant documents plus the first documents of corpus.jsonl up to QUICK_DOCS. The scorer
 * averages over every judged query of the folder it reads, so the subset (corpus, queries, qrels) is written
 * to a temporary folder outside the repository and both our runs and BM25 are scored on it. Quick figures
 * are easier than full ones (fewer distractors) and only comparable with other quick figures.
 *
 *   node --import tsx bench/retrieval-beir.ts [folder] [--split train] [--quick]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { prepareSearchPass, REPO_ROOT, startDaemon, type BenchDaemon } from './lib/daemon.js';
import { progress, runPool } from './lib/pool.js';
import { finishStandalone, isMain, measure, writeJson, type BenchResult } from './lib/report.js';
import { fromRepo, scoreBeir, SHARED_DIR, type BeirScore } from './lib/scorers.js';
import { latencyFigures, round, throughput, timed, type Summary } from './lib/stats.js';

export const DEFAULT_SCIFACT_DIR = relative(REPO_ROOT, join(SHARED_DIR, 'data', 'scifact'));
const LOAD_CONCURRENCY = 8;
const QUICK_QUERIES = 100;
const QUICK_DOCS = 400;
const SPACE = 'beir';
// default: the request as a client sends it without `hybrid` (words and meaning); semantic: `hybrid: false`.
const MODES = ['semantic', 'default'] as const;
type Mode = (typeof MODES)[number];

const Doc = z.looseObject({ _id: z.coerce.string(), title: z.string().default(''), text: z.string().default('') });
const Query = z.looseObject({ _id: z.coerce.string(), text: z.string() });
type Doc = z.infer<typeof Doc>;
type Query = z.infer<typeof Query>;

function readJsonl<T>(path: string, schema: z.ZodType<T>): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => schema.parse(JSON.parse(line)));
}

/** qrels/<split>.tsv: "query-id<TAB>corpus-id<TAB>score" with a header line; query order kept. */
function readQrels(path: string): Map<string, Map<string, number>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const [index, line] of readFileSync(path, 'utf8').split('\n').entries()) {
    if (!line.trim()) continue;
    const [queryId, docId, score] = line.split('\t');
    if (index === 0 && Number.isNaN(Number(score))) continue;
    if (queryId === undefined || docId === undefined) continue;
    let judged = qrels.get(queryId);
    if (!judged) qrels.set(queryId, (judged = new Map()));
    judged.set(docId, Number(score));
  }
  return qrels;
}

export interface Dataset {
  readonly docs: Doc[];
  readonly queries: Query[];
  readonly qrels: Map<string, Map<string, number>>;
}

export function loadDataset(dir: string, split: string): Dataset {
  const docs = readJsonl(join(dir, 'corpus.jsonl'), Doc);
  const qrels = readQrels(join(dir, 'qrels', `${split}.tsv`));
  const byId = new Map(readJsonl(join(dir, 'queries.jsonl'), Query).map((query) => [query._id, query]));
  const queries: Query[] = [];
  for (const [queryId, judged] of qrels) {
    const query = byId.get(queryId);
    if (query && [...judged.values()].some((score) => score > 0)) queries.push(query);
  }
  return { docs, queries, qrels };
}

function quickSubset(full: Dataset): Dataset {
  const queries = full.queries.slice(0, QUICK_QUERIES);
  const wanted = new Set<string>();
  for (const query of queries) {
    for (const [docId, score] of full.qrels.get(query._id) ?? []) if (score > 0) wanted.add(docId);
  }
  for (const doc of full.docs) {
    if (wanted.size >= QUICK_DOCS) break;
    wanted.add(doc._id);
  }
  const qrels = new Map(queries.map((query) => [query._id, full.qrels.get(query._id) ?? new Map<string, number>()]));
  return { docs: full.docs.filter((doc) => wanted.has(doc._id)), queries, qrels };
}

function writeDataset(dir: string, split: string, dataset: Dataset): void {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), dataset.docs.map((doc) => JSON.stringify(doc)).join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), dataset.queries.map((query) => JSON.stringify(query)).join('\n') + '\n');
  const lines = ['query-id\tcorpus-id\tscore'];
  for (const [queryId, judged] of dataset.qrels) for (const [docId, score] of judged) lines.push(`${queryId}\t${docId}\t${score}`);
  writeFileSync(join(dir, 'qrels', `${split}.tsv`), lines.join('\n') + '\n');
}

interface ScoreFigures {
  readonly ndcg10: number | null;
  readonly recall10: number | null;
  readonly recall100: number | null;
  readonly mrr10: number | null;
}

function figures(score: BeirScore): ScoreFigures {
  const r = (value: number | null) => (value === null ? null : round(value, 4));
  return { ndcg10: r(score.metrics.ndcg10), recall10: r(score.metrics.recall10), recall100: r(score.metrics.recall100), mrr10: r(score.metrics.mrr10) };
}

/** Saves every document as a memory in SPACE, LOAD_CONCURRENCY in flight (see the header). */
export async function saveDocs(daemon: BenchDaemon, docs: readonly Doc[]): Promise<void> {
  const bar = progress('save documents', docs.length);
  await runPool(docs, LOAD_CONCURRENCY, async (doc) => {
    // An abstract-less document still has its title to be found by.
    const content = doc.text.trim() ? doc.text : doc.title;
    await daemon.client.save({ content, ...(doc.title.trim() ? { title: doc.title.slice(0, 500) } : {}), spaceId: SPACE, metadata: { _id: doc._id } });
    bar.tick();
  });
  bar.done();
}

export interface ScifactOptions {
  readonly dir?: string;
  readonly split?: string;
  readonly quick?: boolean;
}

export async function runScifact(options: ScifactOptions = {}): Promise<BenchResult> {
  const quick = options.quick ?? false;
  const split = options.split ?? 'train';
  const started = Date.now();
  const dir = fromRepo(options.dir ?? DEFAULT_SCIFACT_DIR);
  const full = loadDataset(dir, split);
  const dataset = quick ? quickSubset(full) : full;

  const daemon = await startDaemon();
  const runs = new Map<Mode, Record<string, string[]>>();
  const latencies = new Map<Mode, number[]>();
  let load: { items: number; seconds: number; itemsPerSecond: number };
  let rssAfterLoadMb: number;
  let compactSeconds: number;
  try {
    const loading = await timed(() => saveDocs(daemon, dataset.docs));
    load = {
      items: dataset.docs.length,
      seconds: round(loading.ms / 1000, 1),
      itemsPerSecond: round(throughput(dataset.docs.length, loading.ms), 1),
    };
    rssAfterLoadMb = round(daemon.rssMb(), 0);
    compactSeconds = round(await daemon.compact(), 1);
    for (const [pass, mode] of MODES.entries()) {
      await prepareSearchPass(daemon, pass, SPACE, mode !== 'semantic');
      const run: Record<string, string[]> = {};
      const times: number[] = [];
      const searching = progress(`search ${mode}`, dataset.queries.length);
      for (const query of dataset.queries) {
        const { value, ms } = await timed(() =>
          daemon.client.search({ query: query.text.slice(0, 1000), spaceId: SPACE, limit: 100, threshold: 0, ...(mode === 'semantic' ? { hybrid: false } : {}) }),
        );
        times.push(ms);
        run[query._id] = value.results.map((result) => {
          const id = result.metadata?._id;
          if (typeof id !== 'string') throw new Error(`search result ${result.id} has no metadata._id`);
          return id;
        });
        searching.tick();
      }
      searching.done();
      runs.set(mode, run);
      latencies.set(mode, times);
    }
  } finally {
    await daemon.stop();
  }

  // The subset the scorer reads goes to a temporary folder, outside the repository.
  const scratch = quick ? mkdtempSync(join(tmpdir(), 'mem-bench-beir-')) : null;
  const scoredDir = scratch ?? dir;
  try {
    if (scratch) writeDataset(scratch, split, dataset);
    const scores: Record<string, ScoreFigures> = {};
    const runFiles: Record<string, string> = {};
    const latency: Record<string, Summary> = {};
    const scoredWith = new Set<string>();
    for (const [mode, run] of runs) {
      const runFile = writeJson(`scifact-${mode}.json`, run);
      runFiles[mode] = relative(REPO_ROOT, runFile);
      const { score, via } = await scoreBeir(scoredDir, split, runFile);
      if (score.missingInRun > 0) throw new Error(`${score.missingInRun} queries are missing from the ${mode} run`);
      scoredWith.add(via);
      scores[mode] = figures(score);
      latency[mode] = latencyFigures(latencies.get(mode) ?? []);
    }
    const bm25 = await scoreBeir(scoredDir, split, null);
    scoredWith.add(bm25.via);
    scores.bm25 = figures(bm25.score);

    return {
      name: 'scifact',
      quick,
      seconds: (Date.now() - started) / 1000,
      figures: {
        dataset: relative(REPO_ROOT, dir),
        split,
        subset: quick ? { queries: QUICK_QUERIES, documents: QUICK_DOCS, rule: 'first judged queries; their relevant docs + first corpus docs' } : null,
        documents: dataset.docs.length,
        queries: dataset.queries.length,
        load: { ...load, concurrency: LOAD_CONCURRENCY },
        rssAfterLoadMb,
        compactSeconds,
        scores,
        searchLatencyMs: latency,
        runs: runFiles,
        scorer: [...scoredWith].join(', '),
      },
      tables: [
        {
          title: `BEIR ${relative(REPO_ROOT, dir)} (${split}${quick ? `, quick subset: ${dataset.queries.length} queries, ${dataset.docs.length} docs` : ''})`,
          header: ['system', 'nDCG@10', 'R@10', 'R@100', 'MRR@10'],
          rows: Object.entries(scores).map(([system, s]) => [system, s.ndcg10 ?? Number.NaN, s.recall10 ?? Number.NaN, s.recall100 ?? Number.NaN, s.mrr10 ?? Number.NaN]),
        },
        {
          title: 'Search latency during the run (ms; limit 100, one at a time, tables compacted)',
          header: ['mode', 'n', 'p50', 'p95', 'p99'],
          rows: MODES.map((mode) => {
            const l = latency[mode] as Summary;
            return [mode, l.n, l.p50, l.p95, l.p99];
          }),
        },
      ],
      notes: [
        `${dataset.docs.length} documents saved at ${load.itemsPerSecond} docs/s (${LOAD_CONCURRENCY} in flight), ${dataset.queries.length} queries; daemon RSS after load ${rssAfterLoadMb} MB`,
        `runs: ${Object.values(runFiles).join(', ')} (scored with ${relative(REPO_ROOT, join(SHARED_DIR, 'tools', 'beir-score.mjs'))} via ${[...scoredWith].join(', ')}; bm25 = its baseline)`,
      ],
    };
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { quick: { type: 'boolean', default: false }, split: { type: 'string', default: 'train' } },
  });
  finishStandalone(await measure(() => runScifact({ dir: positionals[0], split: values.split, quick: values.quick })));
}
