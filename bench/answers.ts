/**
 * Answers benchmark: latency of ask, turbo ask, remind, standard save and turbo save through the HTTP API of
 * a real daemon (built-in embedder, built-in extractive answerer), and the answerer's quality on LoCoMo-dev.
 *
 * Latency at 1k memories (10k and 100k: bench/scale.ts): load generated notes (bench/lib/notes.ts) with LOAD_CONCURRENCY
 * turbo saves in flight (stored and embedded like any save, without entity extraction), compact the tables as the daemon's periodic maintenance would (BenchDaemon.compact()),
 * then, one request at a time after WARM_UP untimed ones, TIMED requests each of: ask (model default, hybrid
 * retrieval, limit 10), turbo ask (limit 5), remind (defaults), standard save, turbo save. Every query is a
 * fresh sentence, so no request is answered from the query-embedding cache. Client-side wall time (HTTP
 * included) is reported; for turbo, the daemon's own processingTime too.
 *
 * Quality, in-process (bench/lib/answer-eval.ts: the daemon's own dependencies, saves through its routes, asks
 * through AskService so each answer carries the raw measures behind its confidence), on two sets:
 * - LoCoMo-dev (../shared/data/locomo-dev.json; quick: two conversations) in the memory layout of
 *   bench/retrieval-dialog.ts (one memory per turn, its speaker as author, the turn before as context, one space
 *   per conversation, the session's day as a " [8 May, 2023]" suffix and metadata.date). Every question of
 *   categories 1-5 is asked (model default, limit 10, in its conversation's space) and scored by token F1 as
 *   LoCoMo does (bench/lib/answer-score.ts). Every rule weight chosen on it (the built-in answerer's span
 *   variant, the abstention model, the confidence calibration: bench/lib/answer-fit.ts) is reported with
 *   leave-one-conversation-out: fitted on three conversations, scored on the fourth; each fold and the mean.
 * - The project's own sets (bench/data/everyday-notes.json: 106 notes of the kinds people keep, 80 questions,
 *   16 of them unanswerable; everyday-notes-2.json, written blind: 113 notes, 80 questions, 16 unanswerable),
 *   answered with the shipped parameters and never fitted on.
 * Abstention on category 5 and false abstention on 1-4, the calibration table with its expected calibration
 * error (right = F1 >= 0.5), and the in-process ask latency are reported for both.
 *
 *   node --import tsx bench/answers.ts [--quick] [--home DIR]   (DIR keeps the loaded stores for the next run)
 */
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { ANSWER_PARAMETERS } from '../src/core/answers/answer-parameters.js';
import { RULE_VARIANTS, summarise, type FitReport } from './fit-answers.js';
import { answerAll, openAnswerHarness, type AnswerRecord } from './lib/answer-eval.js';
import { calibrationTable, figuresOf, withAbstention, type SetFigures } from './lib/answer-fit.js';
import { CATEGORY_NAMES, locomoFolds, OWN_SETS, ownFolds } from './lib/answer-sets.js';
import { REPO_ROOT, startDaemon, type BenchDaemon } from './lib/daemon.js';
import { createNoteGenerator, type NoteGenerator } from './lib/notes.js';
import { progress, runPool } from './lib/pool.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { latencyFigures, round, timed, type Summary } from './lib/stats.js';

const LOAD_CONCURRENCY = 8;
const WARM_UP = 5;
const NOTE_SEED = 20240611;
const QUERY_SEED = 11;

// ---- latency ----------------------------------------------------------------------------------------

interface SizeFigures {
  readonly memories: number;
  readonly loadSeconds: number;
  readonly compactSeconds: number;
  readonly askMs: Summary;
  readonly turboAskMs: Summary;
  readonly remindMs: Summary;
  readonly saveMs: Summary;
  readonly turboSaveMs: Summary;
  /** The daemon's own processingTime of turbo save and turbo ask. */
  readonly turboSaveProcessingMs: Summary;
  readonly turboAskProcessingMs: Summary;
}

async function load(daemon: BenchDaemon, notes: NoteGenerator, count: number): Promise<number> {
  const items = Array.from({ length: count }, () => notes.note());
  const bar = progress(`load ${count}`, count);
  const { ms } = await timed(() =>
    runPool(items, LOAD_CONCURRENCY, async (note) => {
      // Loaded through turbo save: the same stored memory and vectors, without entity and fact extraction,
      // which would make a 10k load take a quarter of an hour on two cores. The timed saves below do both kinds.
      await daemon.client.turboSave({ content: note.content, tags: note.tags });
      bar.tick();
    }),
  );
  bar.done();
  return ms / 1000;
}

async function timeEach(label: string, count: number, run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARM_UP; i++) await run();
  const times: number[] = [];
  const bar = progress(label, count);
  for (let i = 0; i < count; i++) {
    times.push((await timed(run)).ms);
    bar.tick();
  }
  bar.done();
  return times;
}

async function measureSize(daemon: BenchDaemon, notes: NoteGenerator, queries: NoteGenerator, target: number, timedCount: number): Promise<SizeFigures> {
  const have = (await daemon.client.status()).memoryCount;
  const loadSeconds = await load(daemon, notes, Math.max(0, target - have));
  const compactSeconds = round(await daemon.compact(), 1);
  const client = daemon.client;
  const turboSaveProcessing: number[] = [];
  const turboAskProcessing: number[] = [];
  const askMs = await timeEach(`ask @${target}`, timedCount, () => client.ask({ query: queries.query() }));
  const turboAskMs = await timeEach(`turbo ask @${target}`, timedCount, async () => {
    turboAskProcessing.push((await client.turboAsk({ query: queries.query() })).processingTime);
  });
  const remindMs = await timeEach(`remind @${target}`, timedCount, () => client.remind({ context: queries.query() }));
  const saveMs = await timeEach(`save @${target}`, timedCount, () => {
    const note = notes.note();
    return client.save({ content: note.content, tags: note.tags });
  });
  const turboSaveMs = await timeEach(`turbo save @${target}`, timedCount, async () => {
    const note = notes.note();
    turboSaveProcessing.push((await client.turboSave({ content: note.content, tags: note.tags })).processingTime);
  });
  return {
    memories: target,
    loadSeconds: round(loadSeconds, 1),
    compactSeconds,
    askMs: latencyFigures(askMs),
    turboAskMs: latencyFigures(turboAskMs),
    remindMs: latencyFigures(remindMs),
    saveMs: latencyFigures(saveMs),
    turboSaveMs: latencyFigures(turboSaveMs),
    turboSaveProcessingMs: latencyFigures(turboSaveProcessing.slice(WARM_UP)),
    turboAskProcessingMs: latencyFigures(turboAskProcessing.slice(WARM_UP)),
  };
}

// ---- answer quality -----------------------------------------------------------------------------------

interface ShippedFigures extends Omit<SetFigures, 'scored'> {
  readonly calibration: ReturnType<typeof calibrationTable>;
  readonly askMs: Summary;
}

/** A set answered with the shipped parameters (answer-parameters.ts). */
function shippedFigures(records: readonly AnswerRecord[]): ShippedFigures {
  const { scored, ...figures } = figuresOf(records, ANSWER_PARAMETERS.calibration);
  return { ...figures, calibration: calibrationTable(scored), askMs: latencyFigures(records.map((record) => record.ms)) };
}

export async function measureQuality(quick: boolean, home?: string): Promise<{ locomo: FitReport; shipped: ShippedFigures; own: { name: string; file: string; figures: ShippedFigures }[] }> {
  const folds = locomoFolds(undefined, quick ? 2 : undefined);
  const locomoHarness = await openAnswerHarness(folds, home ? { home: join(home, 'locomo') } : {});
  let locomo: FitReport;
  let shipped: ShippedFigures;
  try {
    const asked = await locomoHarness.ask(folds, { label: 'LoCoMo-dev' });
    const perVariant = await answerAll(asked, RULE_VARIANTS, locomoHarness.deps.embedder, 'LoCoMo-dev');
    locomo = await summarise(perVariant, { asked, embedder: locomoHarness.deps.embedder });
    const [records] = await answerAll(asked, [ANSWER_PARAMETERS.rules], locomoHarness.deps.embedder, 'shipped');
    shipped = shippedFigures(withAbstention(records ?? [], ANSWER_PARAMETERS.rules.abstention));
  } finally {
    await locomoHarness.close();
  }
  const own: { name: string; file: string; figures: ShippedFigures }[] = [];
  for (const set of OWN_SETS) {
    const folds = ownFolds(set.file);
    const harness = await openAnswerHarness(folds, home ? { home: join(home, set.name) } : {});
    try {
      const [records] = await harness.run(folds, [ANSWER_PARAMETERS.rules], { label: set.name });
      // The harness answers without the abstention model (the fits apply it); the product applies it.
      own.push({ name: set.name, file: set.file, figures: shippedFigures(withAbstention(records ?? [], ANSWER_PARAMETERS.rules.abstention)) });
    } finally {
      await harness.close();
    }
  }
  return { locomo, shipped, own };
}

const CATEGORY_ROWS = ['1', '2', '3', '4', 'overall'];

function setRows(figures: ShippedFigures): (string | number)[][] {
  return [
    ...CATEGORY_ROWS.map((key) => [key === 'overall' ? 'overall (1-4)' : `${key} ${CATEGORY_NAMES[Number(key)]}`, figures.counts[key] ?? 0, figures.f1[key] ?? 0]),
    ['abstention on 5 (unanswerable)', figures.counts['5'] ?? 0, figures.abstention],
    ['false abstention on 1-4', figures.counts.overall ?? 0, figures.falseAbstention],
    ['ECE of confidence (right = F1 >= 0.5)', figures.calibration.rows.reduce((sum, row) => sum + row.n, 0), figures.calibration.ece],
  ];
}

// ---- the run ----------------------------------------------------------------------------------------

export async function runAnswers(options: { quick?: boolean; home?: string } = {}): Promise<BenchResult> {
  const quick = options.quick ?? false;
  const started = Date.now();
  // Latency at 10k and 100k memories is the scale benchmark's; here it is timed on a small store.
  const sizes = [1000];
  const timedCount = quick ? 50 : 100;
  const latency: SizeFigures[] = [];
  const daemon = await startDaemon({ timeoutMs: 600_000 });
  try {
    const notes = createNoteGenerator(NOTE_SEED);
    const queries = createNoteGenerator(QUERY_SEED);
    for (const size of sizes) latency.push(await measureSize(daemon, notes, queries, size, timedCount));
  } finally {
    await daemon.stop();
  }
  const quality = await measureQuality(quick, options.home);
  const at = latency.at(-1) as SizeFigures;
  const { locomo, shipped, own } = quality;
  return {
    name: 'answers',
    quick,
    seconds: (Date.now() - started) / 1000,
    figures: {
      latency,
      locomo: { folds: locomo.folds.map(({ scored: _scored, ...fold }) => fold), mean: locomo.mean, abstention: locomo.abstention, falseAbstention: locomo.falseAbstention, calibration: locomo.calibration, fitted: locomo.fitted },
      locomoShipped: shipped,
      ownSets: Object.fromEntries(own.map((set) => [set.name, set.figures])),
      targets: {
        turboSaveP50Ms: { target: 30, measured: at.turboSaveMs.p50, memories: at.memories, met: at.turboSaveMs.p50 <= 30 },
        askP50Ms: { target: 150, measured: at.askMs.p50, memories: at.memories, met: at.askMs.p50 <= 150 },
        locomoHeldOutF1: { overall: locomo.mean.overall, singleHop: locomo.mean['4'], temporal: locomo.mean['2'], multiHop: locomo.mean['1'] },
        abstention: { unanswerable: locomo.abstention, falseAbstention: locomo.falseAbstention },
        ece: locomo.calibration.ece,
      },
    },
    tables: [
      {
        title: `Latency (ms, client wall time through HTTP, one at a time, ${timedCount} requests each, tables compacted)`,
        header: ['memories', 'request', 'p50', 'p95', 'p99'],
        rows: latency.flatMap((size) =>
          (
            [
              ['ask', size.askMs],
              ['turbo ask', size.turboAskMs],
              ['remind', size.remindMs],
              ['save', size.saveMs],
              ['turbo save', size.turboSaveMs],
              ['turbo save (processingTime)', size.turboSaveProcessingMs],
              ['turbo ask (processingTime)', size.turboAskProcessingMs],
            ] as const
          ).map(([label, summary]) => [String(size.memories), label, summary.p50, summary.p95, summary.p99]),
        ),
      },
      {
        title: 'Built-in answerer on LoCoMo-dev, leave one conversation out: token F1 of each held-out conversation (rules and calibration fitted on the other three; abstentions score 0)',
        header: ['conversation', 'multi-hop', 'temporal', 'open-domain', 'single-hop', 'overall', 'abstention (5)', 'false abstention (1-4)'],
        rows: [
          ...locomo.folds.map((fold) => [fold.fold, fold.f1['1'] ?? 0, fold.f1['2'] ?? 0, fold.f1['3'] ?? 0, fold.f1['4'] ?? 0, fold.f1.overall ?? 0, fold.abstention, fold.falseAbstention]),
          ['mean', locomo.mean['1'] ?? 0, locomo.mean['2'] ?? 0, locomo.mean['3'] ?? 0, locomo.mean['4'] ?? 0, locomo.mean.overall ?? 0, locomo.abstention, locomo.falseAbstention],
        ],
      },
      {
        title: `Calibration of held-out answers on LoCoMo-dev (right = token F1 >= 0.5; ECE ${locomo.calibration.ece})`,
        header: ['confidence', 'answers', 'mean confidence', 'share right'],
        rows: locomo.calibration.rows.map((row) => [row.bin, row.n, row.meanConfidence, row.rightShare]),
      },
      { title: 'LoCoMo-dev with the shipped parameters (fitted on all four conversations: not held out)', header: ['', 'n', 'value'], rows: setRows(shipped) },
      ...own.map((set) => ({ title: `The project's own set ${relative(REPO_ROOT, set.file)} with the shipped parameters (never fitted on it)`, header: ['', 'n', 'value'], rows: setRows(set.figures) })),
    ],
    notes: [
      `targets at ${at.memories} memories: turbo save p50 ${at.turboSaveMs.p50} ms (target <= 30), ask p50 ${at.askMs.p50} ms (target <= 150)`,
      `in-process ask (retrieval, fact lookup, answer) on LoCoMo-dev p50/p95 ${shipped.askMs.p50}/${shipped.askMs.p95} ms; ${own.map((set) => `${set.name} ${set.figures.askMs.p50}/${set.figures.askMs.p95} ms`).join(', ')}`,
      `rules fitted on all LoCoMo-dev conversations: ${JSON.stringify(locomo.fitted.rules)}`,
    ],
  };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, home: { type: 'string' } } });
  finishStandalone(await measure(() => runAnswers({ quick: values.quick, ...(values.home ? { home: values.home } : {}) })));
}
