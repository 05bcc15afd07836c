import { MemError } from '../errors.js';
import type { AnswerChunk, AnswerRequest, AnswerTier, LanguageModel } from './spec.js';

/**
 * Answers with `primary` (Ollama) and, when it cannot be reached at all, with `fallback` (the built-in
 * answerer). Unlike embeddings, answers from two models never mix in storage, so falling back is safe; the
 * finish chunk names the model that really answered. A missing model or a timeout is not "unreachable":
 * those errors name their fix and are passed on.
 */
export class FallbackLanguageModel implements LanguageModel {
  readonly provider: string;

  constructor(
    private readonly primary: LanguageModel,
    private readonly fallback: LanguageModel,
  ) {
    this.provider = primary.provider;
  }

  modelFor(tier: AnswerTier): string {
    return this.primary.modelFor(tier);
  }

  async *answer(request: AnswerRequest): AsyncIterable<AnswerChunk> {
    const iterator = this.primary.answer(request)[Symbol.asyncIterator]();
    let first: IteratorResult<AnswerChunk>;
    try {
      first = await iterator.next();
    } catch (error) {
      if (!(error instanceof MemError && error.details?.reason === 'unreachable')) throw error;
      yield* this.fallback.answer(request);
      return;
    }
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}
