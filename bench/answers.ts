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
 * Quality (LoCoMo-dev, ../shared/data/locomo-dev.json; quick: the first conversation): the memory layout of
 * bench/retrieval-dialog.ts (one memory per dialog turn, content its text, author its speaker, context the turn
 * before it in its session, one space per conversation), plus the session date: a " [8 May, 2023]" suffix in the content and metadata.date (ISO), which
 * the answerer resolves relative phrases ("yesterday") against. Every question of categories 1-4 is asked
 * (model default, limit 10, spaceId = its conversation) and the answer scored by token F1 against the gold
 * answer the way LoCoMo's task_eval/evaluation.py does: normalise (lowercase, drop punctuation and the words
 * a/an/the/and), stem each token, F1 over the token multisets; category 1 (multi-hop) splits the prediction
 * and the gold answer on commas and averages, over gold parts, the best F1 of any predicted part; category 3
 * keeps the gold text before any ';'. LoCoMo stems with NLTK's Porter stemmer; this uses a light suffix
 * stemmer (-s, -es, -ed, -ing, -ly), so figures may differ from Porter's by a little.
 *
 *   node --import tsx bench/answers.ts [--quick]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startDaemon, type BenchDaemon } from './lib/daemon.js';
import { createNoteGenerator, type NoteGenerator } from './lib/notes.js';
import { progress, runPool } from './lib/pool.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { SHARED_DIR } from './lib/scorers.js';
import { latencyFigures, round, timed, type Summary } from './lib/stats.js';

const LOAD_CONCURRENCY = 8;
const WARM_UP = 5;
const NOTE_SEED = 20240611;
const QUERY_SEED = 11;
const LOCOMO_FILE = join(SHARED_DIR, 'data', 'locomo-dev.json');
const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

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

// ---- LoCoMo token F1 ---------------------------------------------------------------------------------

const Turn = z.object({ speaker: z.string(), dia_id: z.string(), text: z.string() });
const Qa = z.looseObject({ question: z.string(), answer: z.union([z.string(), z.number()]).optional(), category: z.number().int() });
const Sample = z.looseObject({ sample_id: z.string(), conversation: z.record(z.string(), z.unknown()), qa: z.array(Qa) });

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" -> epoch ms (UTC). */
export function parseLocomoDate(text: string): number | undefined {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!match) return undefined;
  const month = MONTHS.indexOf((match[5] ?? '').toLowerCase());
  if (month < 0) return undefined;
  let hour = Number(match[1]) % 12;
  if ((match[3] ?? '').toLowerCase() === 'pm') hour += 12;
  return Date.UTC(Number(match[6]), month, Number(match[4]), hour, Number(match[2]));
}

function stemToken(token: string): string {
  if (token.length <= 4) return token;
  return token.replace(/(?:ing|edly|ed|ly|es|s)$/, '') || token;
}

/** LoCoMo's normalize_answer, then stemmed tokens. */
export function answerTokens(text: string): string[] {
  const normalized = text
    .toLowerCase()
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~’‘“”—–]/g, '')
    .replace(/\b(?:a|an|the|and)\b/g, ' ');
  return normalized.split(/\s+/).filter(Boolean).map(stemToken);
}

export function tokenF1(prediction: string, gold: string): number {
  const predicted = answerTokens(prediction);
  const expected = answerTokens(gold);
  if (predicted.length === 0 || expected.length === 0) return predicted.length === expected.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const token of expected) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predicted) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      common += 1;
      counts.set(token, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predicted.length;
  const recall = common / expected.length;
  return (2 * precision * recall) / (precision + recall);
}

export function locomoF1(prediction: string, gold: string, category: number): number {
  if (category === 1) {
    const predictions = prediction.split(',').map((part) => part.trim());
    const golds = gold.split(',').map((part) => part.trim());
    return golds.reduce((sum, part) => sum + Math.max(...predictions.map((p) => tokenF1(p, part))), 0) / golds.length;
  }
  if (category === 3) return tokenF1(prediction, gold.split(';')[0] ?? gold);
  return tokenF1(prediction, gold);
}

interface QualityFigures {
  readonly conversations: number;
  readonly turns: number;
  readonly byCategory: Record<string, { name: string; n: number; f1: number; noResult: number }>;
  readonly overall: { n: number; f1: number };
  readonly askMs: Summary;
}

export async function measureQuality(quick: boolean): Promise<{ figures: QualityFigures; examples: string[] }> {
  const samples = z.array(Sample).parse(JSON.parse(readFileSync(LOCOMO_FILE, 'utf8'))).slice(0, quick ? 1 : undefined);
  const daemon = await startDaemon();
  try {
    const turns = samples.flatMap((sample) =>
      Object.keys(sample.conversation)
        .filter((key) => /^session_\d+$/.test(key) && Array.isArray(sample.conversation[key]))
        .flatMap((key) => {
          const dateText = String(sample.conversation[`${key}_date_time`] ?? '');
          const date = parseLocomoDate(dateText);
          const day = dateText.replace(/^.*\bon\s+/, '');
          const sessionTurns = z.array(Turn).parse(sample.conversation[key]);
          return sessionTurns.map((turn, index) => ({
            spaceId: sample.sample_id,
            content: `${turn.text}${day ? ` [${day}]` : ''}`,
            author: turn.speaker,
            context: index > 0 ? `${sessionTurns[index - 1]?.speaker}: ${sessionTurns[index - 1]?.text}` : '',
            metadata: {
              dia_id: turn.dia_id,
              session: Number(key.slice('session_'.length)),
              session_date: dateText,
              ...(date !== undefined ? { date: new Date(date).toISOString() } : {}),
            },
          }));
        }),
    );
    const bar = progress('save turns', turns.length);
    await runPool(turns, LOAD_CONCURRENCY, async (turn) => {
      await daemon.client.save({
        content: turn.content,
        author: turn.author,
        ...(turn.context ? { context: turn.context } : {}),
        spaceId: turn.spaceId,
        metadata: turn.metadata,
        tags: [turn.spaceId],
      });
      bar.tick();
    });
    bar.done();
    await daemon.compact();

    const scores = new Map<number, { sum: number; n: number; noResult: number }>();
    const latencies: number[] = [];
    const examples: string[] = [];
    const questions = samples.flatMap((sample) => sample.qa.filter((qa) => qa.category >= 1 && qa.category <= 4 && qa.answer !== undefined).map((qa) => ({ sample, qa })));
    const askBar = progress('ask', questions.length);
    for (const { sample, qa } of questions) {
      const { value, ms } = await timed(() => daemon.client.ask({ query: qa.question, spaceId: sample.sample_id, limit: 10 }));
      latencies.push(ms);
      const gold = String(qa.answer);
      const f1 = locomoF1(value.noResult ? '' : value.answer, gold, qa.category);
      const entry = scores.get(qa.category) ?? { sum: 0, n: 0, noResult: 0 };
      entry.sum += f1;
      entry.n += 1;
      if (value.noResult) entry.noResult += 1;
      scores.set(qa.category, entry);
      if (examples.length < 6 && qa.category === examples.length % 4 + 1) {
        examples.push(`[cat ${qa.category}] Q: ${qa.question} | gold: ${gold} | answer: ${value.answer} | F1 ${round(f1, 2)}`);
      }
      askBar.tick();
    }
    askBar.done();
    const byCategory = Object.fromEntries(
      [...scores.entries()].sort(([a], [b]) => a - b).map(([category, entry]) => [
        String(category),
        { name: CATEGORY_NAMES[category] ?? String(category), n: entry.n, f1: round(entry.sum / entry.n, 3), noResult: entry.noResult },
      ]),
    );
    const total = [...scores.values()].reduce((acc, entry) => ({ sum: acc.sum + entry.sum, n: acc.n + entry.n }), { sum: 0, n: 0 });
    return {
      figures: {
        conversations: samples.length,
        turns: turns.length,
        byCategory,
        overall: { n: total.n, f1: round(total.sum / total.n, 3) },
        askMs: latencyFigures(latencies),
      },
      examples,
    };
  } finally {
    await daemon.stop();
  }
}

// ---- the run ----------------------------------------------------------------------------------------

export async function runAnswers(options: { quick?: boolean } = {}): Promise<BenchResult> {
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
  const { figures: quality, examples } = await measureQuality(quick);
  const at = latency.at(-1) as SizeFigures;
  return {
    name: 'answers',
    quick,
    seconds: (Date.now() - started) / 1000,
    figures: {
      latency,
      locomo: quality,
      targets: {
        turboSaveP50Ms: { target: 30, measured: at.turboSaveMs.p50, memories: at.memories, met: at.turboSaveMs.p50 <= 30 },
        askP50Ms: { target: 150, measured: at.askMs.p50, memories: at.memories, met: at.askMs.p50 <= 150 },
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
        title: `Built-in answerer on LoCoMo-dev (${quality.conversations} conversations, ${quality.turns} turns): token F1, model default, limit 10`,
        header: ['category', 'n', 'F1', 'noResult'],
        rows: [
          ...Object.entries(quality.byCategory).map(([category, entry]) => [`${category} ${entry.name}`, entry.n, entry.f1, entry.noResult]),
          ['overall (1-4)', quality.overall.n, quality.overall.f1, ''],
        ],
      },
    ],
    notes: [
      `targets at ${at.memories} memories: turbo save p50 ${at.turboSaveMs.p50} ms (target <= 30), ask p50 ${at.askMs.p50} ms (target <= 150)`,
      `LoCoMo ask latency p50/p95 ${quality.askMs.p50}/${quality.askMs.p95} ms`,
      ...examples,
    ],
  };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  finishStandalone(await measure(() => runAnswers({ quick: values.quick })));
}
