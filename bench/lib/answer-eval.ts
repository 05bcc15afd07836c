import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../daemon/app.js';
import { createDeps, type CreatedDeps } from '../../daemon/create-deps.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ANSWER_PARAMETERS } from '../../src/core/answers/answer-parameters.js';
import { AskService, confidenceOf } from '../../src/core/answers/ask-service.js';
import { BuiltinLanguageModel, type AnswerRules } from '../../src/providers/builtin/builtin-language-model.js';
import type { AnswerRequest, AnswerTier, EmbeddingModel, LanguageModel } from '../../src/providers/spec.js';
import type { AnswerFold } from './answer-sets.js';
import { locomoF1 } from './answer-score.js';
import { progress, runPool } from './pool.js';
import { timed } from './stats.js';

/**
 * The answerers' quality harness, in-process: the real daemon's dependencies (createDeps: LanceDB on disk,
 * the built-in embedder and extractor) and its routes (saves go through POST /v1/save as a client's would),
 * while questions go to AskService directly, so each answer comes with the raw measure its confidence is
 * computed from, and the built-in answerer can be built with other rules for the leave-one-conversation-out
 * fits (the variants answer the request that retrieval made once). Latency through HTTP is bench/answers.ts's and
 * bench/scale.ts's.
 */

/** One question as answered by one variant: everything the fits and the report need. */
export interface AnswerRecord {
  readonly fold: string;
  readonly category: number;
  readonly question: string;
  readonly gold: string;
  /** The answer ('' when it abstained or there was nothing to answer from). */
  readonly answer: string;
  readonly basis: 'facts' | 'passages';
  readonly raw: number;
  /** Token F1 of `answer` against the gold answer (LoCoMo's rules); 0 for category 5. */
  readonly f1: number;
  /** Retrieval and fact lookup plus the default answer, in-process. */
  readonly ms: number;
  /** The answerer's ABSTENTION_SIGNALS for a passage answer (the abstention fit reads them). */
  readonly signals?: readonly number[];
}

/**
 * One question as retrieval left it: the request the answerer got (sources, facts, the question's vector),
 * saved so that the answerer's variants can be refitted without the store (fit-answers.ts --requests).
 */
export interface AskedQuestion {
  readonly fold: string;
  readonly category: number;
  readonly question: string;
  readonly gold: string;
  readonly ms: number;
  readonly request?: Omit<AnswerRequest, 'questionVector' | 'signal'> & { readonly questionVector?: readonly number[] };
}

export interface AnswerHarness {
  readonly deps: CreatedDeps;
  /** Asks every question of the folds (each in its fold's space) once, keeping the answerer's request. */
  ask(folds: readonly AnswerFold[], options?: { tier?: AnswerTier; label?: string; limit?: number }): Promise<AskedQuestion[]>;
  /** ask, then answerAll with the variants. */
  run(folds: readonly AnswerFold[], variants: readonly AnswerRules[], options?: { tier?: AnswerTier; label?: string }): Promise<AnswerRecord[][]>;
  close(): Promise<void>;
}

/**
 * Every variant of the built-in answerer's rules answers every asked question (the request retrieval made
 * once), scored as LoCoMo scores answers. The variants abstain only by their own rules: the fitted
 * abstention model is applied to the records afterwards (answer-fit.ts), from the signals they carry.
 */
export async function answerAll(asked: readonly AskedQuestion[], variants: readonly AnswerRules[], embedder: EmbeddingModel, label = 'answer'): Promise<AnswerRecord[][]> {
  const memo = new MemoEmbedder(embedder);
  const models = variants.map((rules) => new BuiltinLanguageModel(memo, { ...rules, abstention: undefined }));
  const records: AnswerRecord[][] = variants.map(() => []);
  const bar = progress(`${label} (${variants.length} variants)`, asked.length);
  for (const entry of asked) {
    const saved = entry.request;
    let request: AnswerRequest | undefined;
    if (saved) {
      const { questionVector, ...rest } = saved;
      request = { ...rest, ...(questionVector ? { questionVector: Float32Array.from(questionVector) } : {}) };
    }
    for (const [index, model] of models.entries()) {
      let answer = '';
      let basis: 'facts' | 'passages' = 'passages';
      let raw = 0;
      let signals: readonly number[] | undefined;
      if (request) {
        const out = await model.extract(request);
        answer = out.text.trim();
        basis = out.basis;
        signals = out.signals;
        const relevance = (id: string) => request.sources.find((source) => source.id === id)?.relevance ?? 0;
        raw = basis === 'facts' ? out.support : confidenceOf(out.cited.map(relevance), request.sources[0]?.relevance ?? 0, out.support);
      }
      records[index]?.push({
        fold: entry.fold,
        category: entry.category,
        question: entry.question,
        gold: entry.gold,
        answer,
        basis,
        raw,
        f1: entry.category === 5 || !answer ? 0 : locomoF1(answer, entry.gold, entry.category),
        ms: entry.ms,
        ...(signals ? { signals } : {}),
      });
    }
    bar.tick();
  }
  bar.done();
  return records;
}

/**
 * The embedder with a memo: the variants embed the same sentences of the same request, which needs doing
 * once. Vectors are the inner model's, so answers are those the daemon gives.
 */
class MemoEmbedder implements EmbeddingModel {
  readonly provider: string;
  readonly modelId: string;
  readonly maxEmbeddingsPerCall: number;
  private readonly memo = new Map<string, Float32Array>();
  constructor(private readonly inner: EmbeddingModel) {
    this.provider = inner.provider;
    this.modelId = inner.modelId;
    this.maxEmbeddingsPerCall = inner.maxEmbeddingsPerCall;
  }
  get dimension(): number {
    return this.inner.dimension;
  }
  init(): Promise<void> {
    return this.inner.init();
  }
  async doEmbed(texts: readonly string[], options?: { readonly signal?: AbortSignal }): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((text) => !this.memo.has(text)))];
    if (missing.length > 0) {
      const vectors = await this.inner.doEmbed(missing, options);
      missing.forEach((text, index) => this.memo.set(text, vectors[index] as Float32Array));
    }
    if (this.memo.size > 50_000) this.memo.clear();
    return texts.map((text) => this.memo.get(text) as Float32Array);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Passes requests through to a model, keeping the last one (the variants answer the same request). */
class RecordingModel implements LanguageModel {
  readonly provider: string;
  last: AnswerRequest | undefined;
  constructor(private readonly inner: LanguageModel) {
    this.provider = inner.provider;
  }
  modelFor(tier: AnswerTier): string {
    return this.inner.modelFor(tier);
  }
  answer(request: AnswerRequest) {
    this.last = request;
    return this.inner.answer(request);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const SAVE_CONCURRENCY = 8;

/**
 * Opens (or reuses) a store holding the folds' notes. With `home`, a store loaded before with the same notes
 * is reused (a marker file records what was loaded), which spares the ~2-minute load between fits.
 */
export async function openAnswerHarness(folds: readonly AnswerFold[], options: { home?: string } = {}): Promise<AnswerHarness> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'mem-answers-'));
  mkdirSync(home, { recursive: true });
  const marker = join(home, 'answer-sets.json');
  const wanted = JSON.stringify(folds.map((fold) => [fold.id, fold.notes.length]));
  const loaded = existsSync(marker) && readFileSync(marker, 'utf8') === wanted;
  // LanceDB reads its log level from the process environment (the daemon sets it in main.ts).
  process.env.LANCEDB_LOG ??= 'error';
  const config = loadConfig({ env: { MEM_HOME: home } });
  const deps = await createDeps({ loaded: config, storeFirstKey: false });
  const app: FastifyInstance = await buildApp(deps);
  await app.ready();
  const key = deps.firstKey ?? (await deps.auth.createKey(deps.ownerId, { name: 'bench', type: 'live' })).value;
  if (!loaded) {
    const notes = folds.flatMap((fold) => fold.notes.map((note) => ({ fold, note })));
    const bar = progress('save notes', notes.length);
    await runPool(notes, SAVE_CONCURRENCY, async ({ fold, note }) => {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/save',
        headers: { authorization: `Bearer ${key}` },
        payload: { ...note, spaceId: fold.id, tags: [fold.id] },
      });
      if (response.statusCode !== 201) throw new Error(`save failed: ${response.statusCode} ${response.body}`);
      bar.tick();
    });
    bar.done();
    await deps.knowledge.idle();
    writeFileSync(marker, wanted);
  }
  const harness: AnswerHarness = {
    deps,
    async ask(runFolds, runOptions = {}) {
      const recording = new RecordingModel(new BuiltinLanguageModel(new MemoEmbedder(deps.embedder), ANSWER_PARAMETERS.rules));
      const asker = new AskService(deps.memories, recording, deps.knowledge);
      const questions = runFolds.flatMap((fold) => fold.questions.map((question) => ({ fold, question })));
      const bar = progress(runOptions.label ?? 'ask', questions.length);
      const asked: AskedQuestion[] = [];
      for (const { fold, question } of questions) {
        recording.last = undefined;
        const tier = runOptions.tier ?? 'default';
        const { ms } = await timed(() => asker.ask(deps.ownerId, { query: question.question, limit: runOptions.limit ?? 10, filter: { spaceId: fold.id }, tier, hybrid: true }));
        const request = recording.last as AnswerRequest | undefined;
        asked.push({
          fold: fold.id,
          category: question.category,
          question: question.question,
          gold: question.gold,
          ms,
          ...(request
            ? { request: { question: request.question, sources: request.sources, ...(request.facts ? { facts: request.facts } : {}), tier: request.tier, ...(request.questionVector ? { questionVector: [...request.questionVector] } : {}) } }
            : {}),
        });
        bar.tick();
      }
      bar.done();
      return asked;
    },
    async run(runFolds, variants, runOptions = {}) {
      return answerAll(await harness.ask(runFolds, runOptions), variants, deps.embedder, runOptions.label);
    },
    async close() {
      await app.close();
      await deps.close();
      if (!options.home) rmSync(home, { recursive: true, force: true });
    },
  };
  return harness;
}
