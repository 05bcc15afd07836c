import { describe, expect, it } from 'vitest';
import type { AskedQuestion } from '../../bench/lib/answer-eval.js';
import { fitLineWeights, lineSamples } from '../../bench/lib/line-ranker.js';
import { BuiltinLanguageModel, LINE_FEATURES, type AnswerRules } from '../../src/providers/builtin/builtin-language-model.js';
import type { EmbeddingModel } from '../../src/providers/spec.js';
import { fakeEmbedding } from '../helpers/fake-ollama.js';

/** The fit of the built-in answerer's line ranker (bench/fit-answers.ts): what it learns from, and what it learns. */

const embedder: EmbeddingModel = {
  provider: 'test',
  modelId: 'test/bag-of-words',
  dimension: 64,
  maxEmbeddingsPerCall: 64,
  async init() {},
  async doEmbed(texts) {
    return texts.map((text) => Float32Array.from(fakeEmbedding(text, 64)));
  },
  async close() {},
};
const RULES: AnswerRules = { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 3, fillerPenalty: 0, speakerWeight: 0, newsWeight: 0, trimEcho: true, quotedTitles: true };

function asked(fold: string, category: number, question: string, gold: string, lines: string[]): AskedQuestion {
  return {
    fold,
    category,
    question,
    gold,
    ms: 1,
    request: { question, tier: 'default', sources: lines.map((content, index) => ({ id: `${fold}-${index}`, title: content, content, relevance: 0.9 - index * 0.1, date: 0 })) },
  };
}

describe('the line ranker fit', () => {
  const model = new BuiltinLanguageModel(embedder, RULES);

  it('labels the lines that answer best, weighs each question the same, and leaves out what no line answers', async () => {
    const sets = await lineSamples(
      [
        asked('a', 4, 'What book does Caroline love?', 'Becoming Nicole', ['Caroline: I love books so much.', 'Caroline: I love "Becoming Nicole" the most.', 'Melanie: Books are great!']),
        // No line holds the answer: nothing to learn from.
        asked('a', 4, 'What pet does Caroline have?', 'guinea pig', ['Caroline: What pet do you have?', 'Melanie: We have a dog.']),
        // Unanswerable and "when" questions teach the line ranker nothing.
        asked('a', 5, 'What book does Melanie love?', '', ['Caroline: I love "Becoming Nicole".']),
        asked('b', 2, 'When did Caroline read it?', '8 May 2023', ['Caroline: I read it yesterday.']),
      ],
      model,
    );
    expect(sets).toHaveLength(1);
    const [set] = sets;
    expect(set?.fold).toBe('a');
    expect(set?.samples.map((sample) => sample.y)).toEqual([0, 1, 0]);
    expect(set?.samples.map((sample) => sample.weight)).toEqual([0.5, 1, 0.5]);
    expect(set?.samples[0]?.x).toHaveLength(LINE_FEATURES.length);
  });

  it('learns the feature that tells the answering line apart, on the folds given only', () => {
    const quoted = LINE_FEATURES.indexOf('quoted');
    const row = (answers: boolean, noise: number) => ({
      x: LINE_FEATURES.map((_, i) => (i === quoted ? (answers ? 1 : 0) : noise)),
      y: (answers ? 1 : 0) as 0 | 1,
      weight: 1,
    });
    const train = { fold: 'a', samples: Array.from({ length: 40 }, (_, i) => row(i % 4 === 0, (i % 7) / 7)) };
    // Another fold where the same feature means the opposite: left out, it must not count.
    const other = { fold: 'b', samples: Array.from({ length: 400 }, (_, i) => row(i % 4 !== 0, 0.5)).map((sample) => ({ ...sample, x: sample.x.map((value, i) => (i === quoted ? 1 - (sample.y ? 1 : 0) : value)) })) };
    const weights = fitLineWeights([train, other], new Set(['a']));
    expect(weights?.[quoted]).toBeGreaterThan(2);
    expect(fitLineWeights([train, other], new Set(['c']))).toBeUndefined();
    expect(fitLineWeights([])).toBeUndefined();
  });
});
