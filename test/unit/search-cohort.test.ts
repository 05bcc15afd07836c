import { describe, expect, it } from 'vitest';
import { Cohort, nearestSimilarities } from '../../src/core/search/cohort.js';
import { COHORT_TEXTS } from '../../src/core/search/cohort-texts.js';
import { LIFT_PACK } from '../../src/core/search/features.js';
import { MemError } from '../../src/errors.js';
import type { EmbeddingModel } from '../../src/providers/spec.js';

/** An embedder whose vectors say which text they are (one-hot on the text's index), and that can fail. */
function fakeEmbedder(failures = 0): EmbeddingModel & { calls: number } {
  let left = failures;
  const model = {
    provider: 'fake',
    modelId: 'fake/one-hot',
    dimension: COHORT_TEXTS.length,
    maxEmbeddingsPerCall: 64,
    calls: 0,
    async init() {},
    async close() {},
    async doEmbed(texts: readonly string[]) {
      model.calls += 1;
      if (left-- > 0) throw new MemError('MODEL_UNAVAILABLE', 'down');
      return texts.map((text) => {
        const vector = new Float32Array(COHORT_TEXTS.length);
        vector[Math.max(0, COHORT_TEXTS.indexOf(text))] = 1;
        return vector;
      });
    },
  };
  return model;
}

describe('search cohort', () => {
  it('gives the largest similarities, largest first, at most the pack', () => {
    const vector = new Float32Array([1, 0]);
    const others = [0.2, 0.9, -0.5, 0.4].map((x) => new Float32Array([x, 1]));
    expect(nearestSimilarities(vector, others, 2)).toEqual([expect.closeTo(0.9), expect.closeTo(0.4)]);
    expect(nearestSimilarities(vector, others, 10)).toHaveLength(4);
  });

  it('compares a query with every cohort text and keeps the pack', async () => {
    const embedder = fakeEmbedder();
    const query = new Float32Array(COHORT_TEXTS.length);
    query[3] = 0.8;
    query[7] = 0.6;
    const nearest = await new Cohort(embedder).nearest(query);
    expect(nearest).toHaveLength(LIFT_PACK);
    expect(nearest.slice(0, 3)).toEqual([expect.closeTo(0.8), expect.closeTo(0.6), 0]);
  });

  it('embeds the cohort once per embedder, and again after a failure', async () => {
    const embedder = fakeEmbedder(1);
    const first = new Cohort(embedder);
    await expect(first.prepare()).rejects.toThrow('down');
    const calls = embedder.calls;
    await first.prepare();
    // A second service on the same embedder (another account, another test app) reuses the vectors.
    await new Cohort(embedder).nearest(new Float32Array(COHORT_TEXTS.length));
    expect(embedder.calls).toBe(calls + Math.ceil(COHORT_TEXTS.length / 64));
  });
});
