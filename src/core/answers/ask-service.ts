import { MemError } from '../../errors.js';
import type { AnswerChunk, AnswerSource, AnswerTier, LanguageModel } from '../../providers/spec.js';
import type { MemoryService, SearchHit } from '../memory-service.js';
import type { MemoryFilter, MemoryRecord } from '../types.js';
import { answerConfidence } from './answer-calibration.js';
import { findFactAnswers, type FactLookup, type FactMatch } from './fact-answers.js';
import { analyseQuestion } from './question.js';
import { contentWords, writtenWords } from './text.js';

/** The spec's fixed answer when nothing relevant is found. */
export const NO_RESULT_ANSWER = "I don't have enough information in your memories to answer that.";
/**
 * Which of the top `limit` retrieved memories an answer may draw on: those scoring at least the search's
 * default threshold (0.5), and any that share a word (not a stopword) with the question. Scores are
 * calibrated on large collections; the built-in embedder can rate a plain match very low ("what was that
 * quick thought?" vs "quick thought: buy a standing desk": cosine 0.02, score 0.03), while a shared
 * content word is direct evidence. Unrelated memories share no content words and are left out. The word
 * must be shared as written (writtenWords), not only its stem: stems admit the low-scoring memories that
 * merely touch the question's topic ("raced" for "race"), and the answerer then picks among more wrong lines
 * (bench/README.md, "Answers: what a reply answers").
 */
export const ASK_THRESHOLD = 0.5;

export interface AskInput {
  readonly query: string;
  readonly limit: number;
  readonly filter: MemoryFilter;
  readonly tier: AnswerTier;
  /** Hybrid (semantic + keywords) retrieval. */
  readonly hybrid: boolean;
}

export interface AskContextItem {
  readonly memory: MemoryRecord;
  readonly relevance: number;
}

export interface AskResult {
  readonly answer: string;
  readonly confidence: number;
  readonly tokensUsed: number;
  readonly noResult: boolean;
  readonly suggestion?: string;
  /** The memories retrieved, best first (the route shows them with includeContext). */
  readonly context: readonly AskContextItem[];
  /** The memories the answer cites, in the order it uses them. */
  readonly sources: readonly { readonly id: string; readonly title: string }[];
  /** Which model answered, e.g. `builtin/extractive`. */
  readonly model: string;
  /** What the confidence was computed from (bench/fit-answers.ts fits the calibration on these; not served). */
  readonly evidence?: AnswerEvidence;
}

/** The uncalibrated measures behind an answer's confidence. */
export interface AnswerEvidence {
  readonly basis: 'facts' | 'passages';
  /** confidenceOf(...) for passages, the fact's confidence for facts; 0 without an answer. */
  readonly raw: number;
}

/**
 * An answer in progress: retrieval is done and the model has produced its first chunk (so an unavailable
 * model fails before anything is streamed). Iterate `deltas` to get the text as it comes; `result` settles
 * once they are consumed.
 */
export interface AnswerRun {
  readonly deltas: AsyncIterable<string>;
  readonly result: Promise<AskResult>;
}

/** A memory's own date: metadata.date when it holds one (an imported note's date), else when it was saved. */
export function memoryDate(memory: MemoryRecord): number {
  const value = memory.metadata.date;
  const parsed = typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : Number.NaN;
  return Number.isFinite(parsed) ? parsed : memory.createdAt;
}

/** Share of the answer's content words that occur in the memories it draws on: how grounded it is. */
export function grounding(answer: string, sources: readonly { readonly content: string }[]): number {
  const answerWords = contentWords(answer);
  if (answerWords.length === 0) return 0;
  const present = new Set(sources.flatMap((source) => contentWords(source.content)));
  return answerWords.filter((word) => present.has(word)).length / answerWords.length;
}

/**
 * confidence = retrieval × (0.5 + 0.5 × support), rounded to 2 decimals. retrieval: the mean relevance of
 * the memories the answer cites (the best memory's when it cites none); support: how well those memories
 * back the answer (the answerer's own measure when it has one, else the share of the answer's words found
 * in them). An answer is never more confident than its retrieval, and an unsupported one gets half of it.
 */
export function confidenceOf(citedRelevance: readonly number[], topRelevance: number, support: number): number {
  const retrieval = citedRelevance.length > 0 ? citedRelevance.reduce((sum, value) => sum + value, 0) / citedRelevance.length : topRelevance;
  const clamped = Math.max(0, Math.min(1, support));
  return Math.round(retrieval * (0.5 + 0.5 * clamped) * 100) / 100;
}

function suggestionFor(input: AskInput): string {
  const filtered = input.filter.spaceId !== undefined || (input.filter.tags?.length ?? 0) > 0 || input.filter.after !== undefined || input.filter.before !== undefined;
  return filtered
    ? 'No memory within the filters (space, tags, dates) is relevant: widen or remove them, rephrase the question, or save what you know about it first.'
    : 'Rephrase the question with the words your notes would use, or save a memory about it first (mem save "...").';
}

/**
 * Ask: retrieve the memories relevant to a question (hybrid search honouring limit and filters), then
 * answer from them alone with the configured LanguageModel, citing them.
 */
export class AskService {
  constructor(
    private readonly memories: MemoryService,
    private readonly model: LanguageModel,
    /** The knowledge graph, when there is one: matching facts answer first. */
    private readonly knowledge?: FactLookup,
  ) {}

  /** Facts that answer the question whose source memory lies within the filter; never fails the ask. */
  private async matchingFacts(accountId: string, input: AskInput): Promise<{ facts: FactMatch[]; memories: Map<string, MemoryRecord> }> {
    const memories = new Map<string, MemoryRecord>();
    if (!this.knowledge) return { facts: [], memories };
    const found = await findFactAnswers(this.knowledge, accountId, input.query, analyseQuestion(input.query));
    const facts: FactMatch[] = [];
    for (const fact of found) {
      const memory = memories.get(fact.sourceId) ?? (await this.memories.get(accountId, fact.sourceId).catch((error: unknown) => {
        // A fact whose memory was deleted since is no answer; anything else is a real failure.
        if (error instanceof MemError && error.code === 'NOT_FOUND') return undefined;
        throw error;
      }));
      if (!memory || !withinFilter(memory, input.filter)) continue;
      memories.set(memory.id, memory);
      facts.push(fact);
    }
    // The leading group may have lost its members to the filter: the best remaining fact leads then.
    if (facts.length > 0 && !facts.some((fact) => fact.primary)) facts[0] = { ...(facts[0] as FactMatch), primary: true };
    return { facts, memories };
  }

  /** The model that would answer this tier (`builtin/extractive`, `ollama/llama3.2`). */
  modelFor(tier: AnswerTier): string {
    return this.model.modelFor(tier);
  }

  async ask(accountId: string, input: AskInput, signal?: AbortSignal): Promise<AskResult> {
    const run = await this.start(accountId, input, signal);
    for await (const _delta of run.deltas) {
      // consumed for the result
    }
    return run.result;
  }

  async start(accountId: string, input: AskInput, signal?: AbortSignal): Promise<AnswerRun> {
    const [{ hits }, matched] = await Promise.all([
      this.memories.search(accountId, {
        query: input.query,
        limit: input.limit,
        offset: 0,
        threshold: 0,
        hybrid: input.hybrid,
        filter: input.filter,
      }),
      this.matchingFacts(accountId, input),
    ]);
    const questionWords = new Set(writtenWords(input.query));
    const relevant = (hit: SearchHit) =>
      hit.score >= ASK_THRESHOLD || writtenWords(`${hit.memory.title} ${hit.memory.content}`).some((word) => questionWords.has(word));
    const context: AskContextItem[] = hits.filter(relevant).map((hit) => ({ memory: hit.memory, relevance: hit.score }));
    // A fact's source memory is part of the context even when search ranked it low: the answer cites it.
    for (const memory of matched.memories.values()) {
      if (context.some((item) => item.memory.id === memory.id)) continue;
      context.push({ memory, relevance: hits.find((hit) => hit.memory.id === memory.id)?.score ?? 0 });
    }
    const facts = matched.facts;
    if (context.length === 0) {
      const result: AskResult = {
        answer: NO_RESULT_ANSWER,
        confidence: 0,
        tokensUsed: 0,
        noResult: true,
        suggestion: suggestionFor(input),
        context,
        sources: [],
        model: this.model.modelFor(input.tier),
        evidence: { basis: 'passages', raw: 0 },
      };
      return { deltas: (async function* () { yield NO_RESULT_ANSWER; })(), result: Promise.resolve(result) };
    }

    const sources: AnswerSource[] = context.map(({ memory, relevance }) => ({
      id: memory.id,
      title: memory.title,
      // Who said it belongs to what the answerer reads, as a speaker's name heads a transcript line.
      content: memory.author ? `${memory.author}: ${memory.content}` : memory.content,
      relevance,
      date: memoryDate(memory),
      ...(memory.context ? { context: memory.context } : {}),
    }));
    // Search embedded the question already; the cached vector spares the answerer another embed.
    const questionVector = await this.memories.embedQuery(input.query);
    const iterator = this.model
      .answer({
        question: input.query,
        sources,
        facts: facts.map(({ score: _score, ...fact }) => fact),
        tier: input.tier,
        questionVector,
        ...(signal ? { signal } : {}),
      })
      [Symbol.asyncIterator]();
    const first = await iterator.next();

    let settle!: (result: AskResult) => void;
    let fail!: (error: unknown) => void;
    const result = new Promise<AskResult>((resolve, reject) => {
      settle = resolve;
      fail = reject;
    });
    // A consumer that stops early never reads the result: that must not surface as an unhandled rejection.
    result.catch(() => undefined);
    const model = this.model;

    async function* deltas(): AsyncGenerator<string> {
      let current = first;
      let text = '';
      let finish: Extract<AnswerChunk, { type: 'finish' }> | undefined;
      let completed = false;
      try {
        while (!current.done) {
          const chunk = current.value;
          if (chunk.type === 'delta') {
            text += chunk.text;
            yield chunk.text;
          } else finish = chunk;
          current = await iterator.next();
        }
        completed = true;
      } catch (error) {
        fail(error);
        throw error;
      } finally {
        if (!completed) await iterator.return?.();
      }
      const answer = text.trim();
      const cited = (finish?.cited ?? []).map((id) => context.find((item) => item.memory.id === id)).filter((item) => item !== undefined);
      const backing = cited.length > 0 ? cited : context.slice(0, 1);
      const support = finish?.support ?? grounding(answer, backing.map((item) => item.memory));
      const usage = finish?.usage ?? { promptTokens: 0, completionTokens: 0 };
      const basis = finish?.basis ?? 'passages';
      // A fact answer is as sure as the fact; a passage answer as its retrieval and support (confidenceOf).
      const raw = basis === 'facts' ? support : confidenceOf(cited.map((item) => item.relevance), context[0]?.relevance ?? 0, support);
      settle({
        answer: answer || NO_RESULT_ANSWER,
        confidence: answer ? answerConfidence(basis, raw) : 0,
        tokensUsed: usage.promptTokens + usage.completionTokens,
        noResult: !answer,
        ...(answer ? {} : { suggestion: suggestionFor(input) }),
        context,
        sources: cited.map((item) => ({ id: item.memory.id, title: item.memory.title })),
        model: finish?.model ?? model.modelFor(input.tier),
        evidence: { basis, raw },
      });
    }
    return { deltas: deltas(), result };
  }
}

/** Whether a memory lies within an ask's filter (space, any of the tags, createdAt bounds). */
function withinFilter(memory: MemoryRecord, filter: MemoryFilter): boolean {
  if (filter.spaceId !== undefined && memory.spaceId !== filter.spaceId) return false;
  if (filter.tags && filter.tags.length > 0 && !filter.tags.some((tag) => memory.tags.includes(tag))) return false;
  if (filter.after !== undefined && memory.createdAt < filter.after) return false;
  if (filter.before !== undefined && memory.createdAt > filter.before) return false;
  return true;
}
