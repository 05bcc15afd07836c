/**
 * Retrieval quality on LoCoMo-format conversations (default ../shared/data/locomo-dev.json), through the
 * HTTP API of a real daemon with the built-in embedder.
 *
 * Every dialog turn becomes one memory: content the turn's text, author its speaker, context the turn
 * before it in its session ("<speaker>: <text>"; none for a session's first turn), as a chat app saving a
 * message would send who wrote it and the message it answers; metadata {dia_id, session, session_date}, spaceId = the conversation's sample_id, tags
 * [sample_id]; saved with LOAD_CONCURRENCY in
 * flight; the tables are then compacted as the daemon's periodic maintenance would (BenchDaemon.compact()).
 * Every question (all categories, 1-5) becomes one search in its conversation's space with limit 100 and
 * threshold 0, first all of them in semantic mode (hybrid: false), then, after a daemon restart, all in
 * hybrid mode, one at a time (so the latency figures are those of an otherwise idle daemon, and no hybrid
 * search reuses the query embedding its semantic twin left in the daemon's cache). Result ids map back to dia_ids through the metadata. The rankings
 * are written as runs (bench/results/locomo-<mode>.json, {"<sample_id>#<qa index>": [dia_id, ...]}) and
 * scored by ../shared/tools/locomo-score.mjs, which also gives the BM25 baseline on the same file.
 *
 * The threshold figures: of the evidence turns that a search puts in its top 10, the share scored >= 0.5
 * (the API's default threshold, i.e. still returned by a default search), and the same count over all
 * evidence turns; over the questions of categories 1-4, the ones in the scorer's "overall". Evidence ids
 * are cleaned as the scorer cleans them.
 *
 * Quick mode uses the first QUICK_CONVERSATIONS conversation only (conv-26 of the dev file: 419 turns, 199
 * questions), written to a temporary file outside the repository for the scorer.
 *
 *   node --import tsx bench/retrieval-dialog.ts [file] [--quick]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { prepareSearchPass, REPO_ROOT, startDaemon, type BenchDaemon } from './lib/daemon.js';
import { progress, runPool } from './lib/pool.js';
import { finishStandalone, isMain, measure, writeJson, type BenchResult, type Table } from './lib/report.js';
import { fromRepo, scoreLocomo, SHARED_DIR, type LocomoMetrics, type LocomoScore } from './lib/scorers.js';
import { latencyFigures, round, throughput, timed, type Summary } from './lib/stats.js';

export const DEFAULT_LOCOMO_FILE = relative(REPO_ROOT, join(SHARED_DIR, 'data', 'locomo-dev.json'));
const LOAD_CONCURRENCY = 8;
const DEFAULT_THRESHOLD = 0.5;
const QUICK_CONVERSATIONS = 1;
// default: the request as a client sends it without `hybrid` (words and meaning); semantic: `hybrid: false`.
const MODES = ['semantic', 'default'] as const;
type Mode = (typeof MODES)[number];

// ---- the file ---------------------------------------------------------------------------------------

const Turn = z.object({ speaker: z.string(), dia_id: z.string(), text: z.string() });
// Loose objects: a quick-mode subset is written back for the scorer with every field it had.
const Qa = z.looseObject({
  question: z.string(),
  evidence: z.array(z.string()).default([]),
  category: z.number().int(),
});
const Sample = z.looseObject({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(Qa),
});
export const LocomoFile = z.array(Sample);
export type Sample = z.infer<typeof Sample>;

export interface TurnMemory {
  readonly sampleId: string;
  readonly diaId: string;
  readonly session: number;
  readonly sessionDate: string;
  readonly content: string;
  readonly author: string;
  /** The turn before, in the same session ('' for the first). */
  readonly context: string;
}

function sessions(sample: Sample): { number: number; turns: z.infer<typeof Turn>[]; date: string }[] {
  return Object.keys(sample.conversation)
    .filter((key) => /^session_\d+$/.test(key) && Array.isArray(sample.conversation[key]))
    .map((key) => {
      const number = Number(key.slice('session_'.length));
      const date = sample.conversation[`${key}_date_time`];
      return { number, turns: z.array(Turn).parse(sample.conversation[key]), date: typeof date === 'string' ? date : '' };
    })
    .sort((a, b) => a.number - b.number);
}

export function turnMemories(sample: Sample): TurnMemory[] {
  return sessions(sample).flatMap((session) =>
    session.turns.map((turn, index) => {
      const previous = session.turns[index - 1];
      return {
        sampleId: sample.sample_id,
        diaId: turn.dia_id,
        session: session.number,
        sessionDate: session.date,
        content: turn.text,
        author: turn.speaker,
        context: previous ? `${previous.speaker}: ${previous.text}` : '',
      };
    }),
  );
}

/** The scorer's evidence cleaning (locomo-score.mjs cleanEvidence): "D8:6; D9:17", "D:11:26", "D30:05". */
export function cleanEvidence(evidence: readonly string[], validIds: ReadonlySet<string>): string[] {
  const ids: string[] = [];
  for (const raw of evidence) {
    for (const piece of raw.replace(/D:(\d)/g, 'D$1').split(/[;,\s]+/).filter(Boolean)) {
      const match = /^D(\d+):(\d+)$/.exec(piece);
      const id = match ? `D${Number(match[1])}:${Number(match[2])}` : null;
      if (id && validIds.has(id) && !ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}

// ---- the run ----------------------------------------------------------------------------------------

interface Ranked {
  readonly diaId: string;
  readonly score: number;
}

interface ModeOutcome {
  readonly run: Record<string, string[]>;
  readonly ranked: Map<string, Ranked[]>;
  readonly latencies: number[];
}

async function searchAll(daemon: BenchDaemon, samples: readonly Sample[], mode: Mode): Promise<ModeOutcome> {
  const run: Record<string, string[]> = {};
  const ranked = new Map<string, Ranked[]>();
  const latencies: number[] = [];
  const total = samples.reduce((sum, sample) => sum + sample.qa.length, 0);
  const bar = progress(`search ${mode}`, total);
  for (const sample of samples) {
    for (const [index, qa] of sample.qa.entries()) {
      const qid = `${sample.sample_id}#${index}`;
      const query = qa.question.trim();
      if (!query) continue;
      const { value, ms } = await timed(() =>
        daemon.client.search({ query, spaceId: sample.sample_id, limit: 100, threshold: 0, ...(mode === 'semantic' ? { hybrid: false } : {}) }),
      );
      latencies.push(ms);
      const list: Ranked[] = value.results.map((result) => {
        const diaId = result.metadata?.dia_id;
        if (typeof diaId !== 'string') throw new Error(`search result ${result.id} has no metadata.dia_id`);
        return { diaId, score: result.score };
      });
      ranked.set(qid, list);
      run[qid] = list.map((item) => item.diaId);
      bar.tick();
    }
  }
  bar.done();
  return { run, ranked, latencies };
}

interface ThresholdFigures {
  /** Evidence turns (categories 1-4) found in a top 10. */
  readonly evidenceInTop10: number;
  /** Of those, the ones scored >= 0.5. */
  readonly evidenceInTop10AtDefaultThreshold: number;
  readonly allEvidence: number;
  /** evidenceInTop10AtDefaultThreshold / evidenceInTop10. */
  readonly shareOfTop10Evidence: number;
  /** evidenceInTop10AtDefaultThreshold / allEvidence. */
  readonly shareOfAllEvidence: number;
  /** What a default search (threshold 0.5, limit 100) returns per question, on average. */
  readonly meanResultsAtDefaultThreshold: number;
}

function thresholdFigures(samples: readonly Sample[], ranked: Map<string, Ranked[]>): ThresholdFigures {
  let inTop10 = 0;
  let kept = 0;
  let all = 0;
  let resultsAtDefault = 0;
  let questions = 0;
  for (const sample of samples) {
    const valid = new Set(turnMemories(sample).map((turn) => turn.diaId));
    for (const [index, qa] of sample.qa.entries()) {
      if (qa.category === 5) continue;
      const evidence = cleanEvidence(qa.evidence, valid);
      const list = ranked.get(`${sample.sample_id}#${index}`);
      if (evidence.length === 0 || !list) continue;
      questions += 1;
      resultsAtDefault += list.filter((item) => item.score >= DEFAULT_THRESHOLD).length;
      all += evidence.length;
      for (const item of list.slice(0, 10)) {
        if (!evidence.includes(item.diaId)) continue;
        inTop10 += 1;
        if (item.score >= DEFAULT_THRESHOLD) kept += 1;
      }
    }
  }
  return {
    evidenceInTop10: inTop10,
    evidenceInTop10AtDefaultThreshold: kept,
    allEvidence: all,
    shareOfTop10Evidence: round(inTop10 ? kept / inTop10 : Number.NaN, 3),
    shareOfAllEvidence: round(all ? kept / all : Number.NaN, 3),
    meanResultsAtDefaultThreshold: round(questions ? resultsAtDefault / questions : Number.NaN, 1),
  };
}

// ---- figures ----------------------------------------------------------------------------------------

interface CategoryFigures {
  readonly name: string;
  readonly n: number;
  readonly r1: number | null;
  readonly r5: number | null;
  readonly r10: number | null;
  readonly ndcg10: number | null;
}

function metrics(score: LocomoScore): Record<string, CategoryFigures> {
  const rounded = (m: LocomoMetrics, name: string): CategoryFigures => ({
    name,
    n: m.n,
    r1: m.r1 === null ? null : round(m.r1, 4),
    r5: m.r5 === null ? null : round(m.r5, 4),
    r10: m.r10 === null ? null : round(m.r10, 4),
    ndcg10: m.ndcg10 === null ? null : round(m.ndcg10, 4),
  });
  return {
    ...Object.fromEntries(Object.entries(score.byCategory).map(([category, m]) => [category, rounded(m, m.name)])),
    overall: rounded(score.overall, 'overall (1-4)'),
  };
}

function qualityTable(scores: Record<string, Record<string, CategoryFigures>>): Table {
  const systems = Object.keys(scores);
  const categories = Object.keys(scores[systems[0] ?? ''] ?? {});
  const rows: (string | number)[][] = [];
  for (const category of categories) {
    for (const system of systems) {
      const m = scores[system]?.[category];
      if (!m) continue;
      const label = category === 'overall' ? 'overall (1-4)' : `${category} ${m.name}${category === '5' ? ' (not in overall)' : ''}`;
      rows.push([label, system, m.n, m.r1 ?? Number.NaN, m.r5 ?? Number.NaN, m.r10 ?? Number.NaN, m.ndcg10 ?? Number.NaN]);
    }
  }
  return { title: 'LoCoMo evidence retrieval (per question: recall of the evidence turns)', header: ['category', 'system', 'n', 'R@1', 'R@5', 'R@10', 'nDCG@10'], rows };
}

/** Saves every turn as a memory, LOAD_CONCURRENCY in flight (see the header). */
export async function saveTurns(daemon: BenchDaemon, turns: readonly TurnMemory[]): Promise<void> {
  const bar = progress('save turns', turns.length);
  await runPool(turns, LOAD_CONCURRENCY, async (turn) => {
    await daemon.client.save({
      content: turn.content,
      author: turn.author,
      ...(turn.context ? { context: turn.context } : {}),
      spaceId: turn.sampleId,
      tags: [turn.sampleId],
      metadata: { dia_id: turn.diaId, session: turn.session, session_date: turn.sessionDate },
    });
    bar.tick();
  });
  bar.done();
}

export interface LocomoOptions {
  readonly file?: string;
  readonly quick?: boolean;
}

export async function runLocomo(options: LocomoOptions = {}): Promise<BenchResult> {
  const quick = options.quick ?? false;
  const started = Date.now();
  const file = fromRepo(options.file ?? DEFAULT_LOCOMO_FILE);
  const all = LocomoFile.parse(JSON.parse(readFileSync(file, 'utf8')));
  const samples = quick ? all.slice(0, QUICK_CONVERSATIONS) : all;
  const turns = samples.flatMap(turnMemories);
  const questions = samples.reduce((sum, sample) => sum + sample.qa.length, 0);
  const daemon = await startDaemon();
  const outcomes = new Map<Mode, ModeOutcome>();
  let load: { items: number; seconds: number; itemsPerSecond: number };
  let rssAfterLoadMb: number;
  let compactSeconds: number;
  try {
    const loading = await timed(() => saveTurns(daemon, turns));
    load = { items: turns.length, seconds: round(loading.ms / 1000, 1), itemsPerSecond: round(throughput(turns.length, loading.ms), 1) };
    rssAfterLoadMb = round(daemon.rssMb(), 0);
    compactSeconds = round(await daemon.compact(), 1);
    for (const [pass, mode] of MODES.entries()) {
      await prepareSearchPass(daemon, pass, samples[0]?.sample_id ?? '', mode !== 'semantic');
      outcomes.set(mode, await searchAll(daemon, samples, mode));
    }
  } finally {
    await daemon.stop();
  }

  // The scorer scores every conversation of the file it reads: a subset goes to a temporary file (outside
  // the repository: the data's licence forbids copying it in).
  const scratch = samples.length < all.length ? mkdtempSync(join(tmpdir(), 'mem-bench-locomo-')) : null;
  const scoredFile = scratch ? join(scratch, 'locomo-subset.json') : file;
  try {
    if (scratch) writeFileSync(scoredFile, JSON.stringify(samples));
    const scores: Record<string, Record<string, CategoryFigures>> = {};
    const runFiles: Record<string, string> = {};
    const threshold: Record<string, ThresholdFigures> = {};
    const latency: Record<string, Summary> = {};
    for (const [mode, outcome] of outcomes) {
      const runFile = writeJson(`locomo-${mode}.json`, outcome.run);
      runFiles[mode] = relative(REPO_ROOT, runFile);
      const score = await scoreLocomo(scoredFile, runFile);
      if (score.skipped.missingInRun > 0) throw new Error(`${score.skipped.missingInRun} questions are missing from the ${mode} run`);
      scores[mode] = metrics(score);
      threshold[mode] = thresholdFigures(samples, outcome.ranked);
      latency[mode] = latencyFigures(outcome.latencies);
    }
    scores.bm25 = metrics(await scoreLocomo(scoredFile, null));

    return {
      name: 'locomo',
      quick,
      seconds: (Date.now() - started) / 1000,
      figures: {
        file: relative(REPO_ROOT, file),
        conversations: samples.length,
        turns: turns.length,
        questions,
        load: { ...load, concurrency: LOAD_CONCURRENCY },
        rssAfterLoadMb,
        compactSeconds,
        scores,
        defaultThreshold: { threshold: DEFAULT_THRESHOLD, ...threshold },
        searchLatencyMs: latency,
        runs: runFiles,
      },
      tables: [
        qualityTable(scores),
        {
          title: `Evidence turns in the top 10 that a default search (threshold ${DEFAULT_THRESHOLD}) still returns (categories 1-4)`,
          header: ['mode', 'evidence in top 10', '>= 0.5', 'share of top-10 evidence', 'share of all evidence', 'results >= 0.5 per question'],
          rows: MODES.map((mode) => {
            const t = threshold[mode] as ThresholdFigures;
            return [mode, `${t.evidenceInTop10}/${t.allEvidence}`, t.evidenceInTop10AtDefaultThreshold, t.shareOfTop10Evidence, t.shareOfAllEvidence, t.meanResultsAtDefaultThreshold];
          }),
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
        `${samples.length} conversations, ${turns.length} turns saved at ${load.itemsPerSecond} turns/s (${LOAD_CONCURRENCY} in flight), ${questions} questions; daemon RSS after load ${rssAfterLoadMb} MB`,
        `runs: ${Object.values(runFiles).join(', ')} (scored with ${relative(REPO_ROOT, join(SHARED_DIR, 'tools', 'locomo-score.mjs'))}; bm25 = its baseline)`,
      ],
    };
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { quick: { type: 'boolean', default: false } } });
  finishStandalone(await measure(() => runLocomo({ file: positionals[0], quick: values.quick })));
}

