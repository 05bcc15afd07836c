import type { EmbeddingModel, EmbedPriority } from '../../providers/spec.js';
import { embedMany } from '../../providers/embed-many.js';
import { COHORT_TEXTS } from './cohort-texts.js';
import { LIFT_PACK } from './features.js';

/**
 * Cohort normalisation for `similarityLift` (features.ts): how far a memory stands out in meaning is its
 * similarity minus the mean of the query's nearest texts. Taken from the account's memories alone, that pack
 * depends on the size of the collection: with five memories it is made of unrelated ones, so every memory
 * stands out and a made-up word finds something; with one memory the pack is that memory and a true paraphrase
 * does not stand out at all. The pack is therefore drawn from the account's candidates together with a fixed
 * cohort of general texts (cohort-texts.ts), embedded once per embedder: in a large collection its own nearest
 * memories make the pack as before, and in a small one the cohort stands in for the memories it lacks.
 */
/**
 * How many of the cohort's nearest texts join the account's candidates in the pack (at most LIFT_PACK).
 * Chosen by bench/fit-search.ts's cross-validation (`--cohort-pack`) with bench/search-small.ts.
 */
export const COHORT_PACK = 10;

/** Per embedder, not per service: every account's service (and every test app on one model) shares it. */
const embedded = new WeakMap<EmbeddingModel, Promise<Float32Array[]>>();

export class Cohort {
  constructor(private readonly embedder: EmbeddingModel) {}

  /**
   * Embeds the cohort, once. A daemon starts it in the background when it starts (so it never delays a
   * request already waiting); a search that comes first embeds it as interactive work.
   */
  prepare(priority: EmbedPriority = 'interactive'): Promise<Float32Array[]> {
    const known = embedded.get(this.embedder);
    if (known) return known;
    const pending = embedMany(this.embedder, COHORT_TEXTS, { priority });
    // A failure (the model unavailable) is tried again on the next search rather than remembered.
    pending.catch(() => {
      if (embedded.get(this.embedder) === pending) embedded.delete(this.embedder);
    });
    embedded.set(this.embedder, pending);
    return pending;
  }

  /** The `count` largest similarities of the query's vector to the cohort, largest first. */
  async nearest(vector: Float32Array, count: number = COHORT_PACK): Promise<number[]> {
    return nearestSimilarities(vector, await this.prepare(), Math.min(count, LIFT_PACK));
  }
}

/** The `count` largest dot products of `vector` with `others` (cosine similarities for normalised vectors). */
export function nearestSimilarities(vector: Float32Array, others: readonly Float32Array[], count: number): number[] {
  const similarities = others.map((other) => {
    let sum = 0;
    const length = Math.min(vector.length, other.length);
    for (let index = 0; index < length; index++) sum += (vector[index] ?? 0) * (other[index] ?? 0);
    return sum;
  });
  return similarities.sort((a, b) => b - a).slice(0, count);
}
