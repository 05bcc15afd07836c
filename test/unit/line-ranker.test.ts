import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AskedQuestion } from '../../bench/lib/answer-eval.js';
import { locomoEvidence, type Evidence } from '../../bench/lib/evidence.js';
import { fitLineWeights, lineSamples, lineTarget, type LineSamples } from '../../bench/lib/line-ranker.js';
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

  it('gives each line the F1 of the answer it would give, marks the evidence turns, and leaves out the unanswerable and "when"', async () => {
    const turnOf = new Map([['Caroline: I love "Becoming Nicole" the most.', 'D1:2']]);
    const evidence: Evidence = { turnsOf: (entry) => new Set(entry.question.startsWith('What book') ? ['D1:2'] : []), turnOf: (_fold, source) => turnOf.get(source.content) };
    const sets = await lineSamples(
      [
        asked('a', 4, 'What book does Caroline love?', 'Becoming Nicole', ['Caroline: I love books so much.', 'Caroline: I love "Becoming Nicole" the most.', 'Melanie: Books are great!']),
        asked('a', 4, 'What pet does Caroline have?', 'guinea pig', ['Caroline: What pet do you have?', 'Melanie: We have a dog.']),
        // Unanswerable and "when" questions teach the line ranker nothing.
        asked('a', 5, 'What book does Melanie love?', '', ['Caroline: I love "Becoming Nicole".']),
        asked('b', 2, 'When did Caroline read it?', '8 May 2023', ['Caroline: I read it yesterday.']),
      ],
      model,
      evidence,
    );
    expect(sets.map((set) => set.fold)).toEqual(['a', 'a']);
    const [book, pet] = sets;
    // The quoted title is the answer that line gives: F1 1, where the whole line would score 0.5.
    expect(book?.f1).toEqual([0, 1, 0]);
    expect(book?.evidence).toEqual([false, true, false]);
    expect(book?.rows[0]).toHaveLength(LINE_FEATURES.length);
    expect(pet?.f1).toEqual([0, 0]);
    // The target: answer F1 plus the evidence bump, as shares; a question nothing answers teaches nothing.
    expect(lineTarget(book as LineSamples, 0.1)?.map((value) => Math.round(value * 1000) / 1000)).toEqual([0, 1, 0]);
    expect(lineTarget({ f1: [0, 0.1], evidence: [true, false] }, 0.2)?.map((value) => Math.round(value * 1000) / 1000)).toEqual([0.667, 0.333]);
    expect(lineTarget(pet as LineSamples, 0.2)).toBeUndefined();
  });

  it('learns the feature that tells the answering line apart, on the folds given only', () => {
    const quoted = LINE_FEATURES.indexOf('quoted');
    const question = (fold: string, flip: boolean, seed: number): LineSamples => {
      const answering = seed % 3;
      const rows = [0, 1, 2].map((i) => LINE_FEATURES.map((_, f) => (f === quoted ? ((i === answering) !== flip ? 1 : 0) : ((seed * 7 + i * 3 + f) % 5) / 5)));
      return { fold, rows, f1: [0, 1, 2].map((i) => (i === answering ? 1 : 0)), evidence: [false, false, false] };
    };
    // Two folds where a quote marks the answer, one where it means the opposite: left out, it must not count.
    const sets = [...Array.from({ length: 30 }, (_, i) => question(i % 2 ? 'a' : 'b', false, i)), ...Array.from({ length: 200 }, (_, i) => question('c', true, i))];
    const weights = fitLineWeights(sets, new Set(['a', 'b']));
    expect(weights).toHaveLength(LINE_FEATURES.length);
    expect(weights?.[quoted]).toBeGreaterThan(2);
    expect(fitLineWeights(sets)?.[quoted]).toBeLessThan(0);
    expect(fitLineWeights(sets, new Set(['d']))).toBeUndefined();
    expect(fitLineWeights([])).toBeUndefined();
  });
});

describe('LoCoMo\'s evidence joined to the saved memories', () => {
  it('finds each question\'s evidence turns and the turn a memory was saved from, by its text and context', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mem-evidence-'));
    const file = join(dir, 'locomo.json');
    const turn = (speaker: string, dia_id: string, text: string) => ({ speaker, dia_id, text });
    writeFileSync(
      file,
      JSON.stringify([
        {
          sample_id: 'conv-x',
          conversation: {
            session_1_date_time: '1:56 pm on 8 May, 2023',
            session_1: [turn('Ann', 'D1:1', 'How are you?'), turn('Bob', 'D1:2', 'Thanks!'), turn('Ann', 'D1:3', 'I got a puppy.'), turn('Bob', 'D1:4', 'Thanks!')],
          },
          qa: [{ question: 'What pet did Ann get?', answer: 'a puppy', evidence: ['D1:3; D1:4'], category: 4 }],
        },
      ]),
    );
    try {
      const evidence = locomoEvidence(file);
      expect([...evidence.turnsOf({ fold: 'conv-x', question: 'What pet did Ann get?', category: 4 })]).toEqual(['D1:3', 'D1:4']);
      expect(evidence.turnsOf({ fold: 'conv-y', question: 'What pet did Ann get?', category: 4 }).size).toBe(0);
      expect(evidence.turnOf('conv-x', { content: 'Ann: I got a puppy. [8 May, 2023]' })).toBe('D1:3');
      // A text said twice is told apart by the turn before it.
      expect(evidence.turnOf('conv-x', { content: 'Bob: Thanks! [8 May, 2023]', context: 'Ann: I got a puppy.' })).toBe('D1:4');
      expect(evidence.turnOf('conv-x', { content: 'Bob: Thanks! [8 May, 2023]', context: 'Ann: How are you?' })).toBe('D1:2');
      expect(evidence.turnOf('conv-x', { content: 'Bob: Something else.' })).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
