import { describe, expect, it } from 'vitest';
import { chunkText, embedPassages, MAX_CONTEXT_WORDS, memoryPassages, passageVector, splitSentences, TARGET_WORDS } from '../../src/core/chunking.js';
import { isId, newId, ulid } from '../../src/core/ids.js';
import { calibrate, scoringFor } from '../../src/core/scoring.js';

describe('ids', () => {
  it('are prefixed, 26-char ULIDs that sort by time', () => {
    const a = newId('memory', 1_700_000_000_000);
    const b = newId('memory', 1_700_000_000_001);
    expect(a).toMatch(/^mem_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(a < b).toBe(true);
    expect(isId('memory', a)).toBe(true);
    expect(isId('memory', a.toLowerCase())).toBe(false);
    expect(isId('memory', `${a}x`)).toBe(false);
    expect(isId('memory', 'mem_')).toBe(false);
    expect(isId('key', a)).toBe(false);
    expect(new Set(Array.from({ length: 1000 }, () => ulid())).size).toBe(1000);
  });
});

describe('chunking', () => {
  it('keeps short text in one chunk, with the title when it adds something', () => {
    expect(chunkText('Hello world.', 'Greeting')).toEqual([{ seq: 0, text: 'Greeting. Hello world.' }]);
    expect(chunkText('Hello world. More.', 'Hello world.')).toEqual([{ seq: 0, text: 'Hello world. More.' }]);
  });

  it('splits long text on sentences with one sentence of overlap', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about topic ${i} in some detail.`);
    const chunks = chunkText(sentences.join(' '));
    expect(chunks.length).toBeGreaterThan(3);
    chunks.forEach((chunk, index) => expect(chunk.seq).toBe(index));
    for (const chunk of chunks) expect(chunk.text.split(/\s+/).length).toBeLessThanOrEqual(TARGET_WORDS + 15);
    for (let i = 1; i < chunks.length; i++) {
      const lastOfPrevious = splitSentences(chunks[i - 1]?.text ?? '').at(-1) ?? '';
      expect(chunks[i]?.text.startsWith(lastOfPrevious)).toBe(true);
    }
    const covered = new Set(chunks.flatMap((chunk) => splitSentences(chunk.text)));
    for (const sentence of sentences) expect(covered.has(sentence)).toBe(true);
  });

  it('heads every passage of a titled text with its title (at most 32 of its words)', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about topic ${i} in some detail.`);
    const chunks = chunkText(sentences.join(' '), 'Notes on topics');
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(chunk.text.startsWith('Notes on topics. Sentence number')).toBe(true);
    expect(chunkText(sentences.join(' '))[1]?.text.startsWith('Sentence number')).toBe(true);
    const long = Array.from({ length: 40 }, (_, i) => `t${i}`).join(' ');
    const header = `${Array.from({ length: 32 }, (_, i) => `t${i}`).join(' ')}. `;
    for (const chunk of chunkText(sentences.join(' '), long)) expect(chunk.text.startsWith(header)).toBe(true);
  });

  it('cuts run-on text without sentence ends', () => {
    const chunks = chunkText(Array.from({ length: 500 }, (_, i) => `w${i}`).join(' '));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((chunk) => chunk.text.length > 0)).toBe(true);
  });
});

describe('passages with context', () => {
  it('index a memory without context by its chunks alone', () => {
    expect(memoryPassages('Hello world.', 'Greeting')).toEqual([{ seq: 0, text: 'Greeting. Hello world.', embed: ['Greeting. Hello world.'] }]);
    expect(memoryPassages('Hello world.', 'Greeting', '   ')).toEqual(memoryPassages('Hello world.', 'Greeting'));
  });

  it('embed each chunk alone and after the context, and weigh its own words twice in the keyword text', () => {
    const [passage] = memoryPassages('Three times a week.', '', 'How often do you go to the gym?');
    expect(passage).toEqual({
      seq: 0,
      text: 'Three times a week.\nHow often do you go to the gym?\nThree times a week.',
      embed: ['Three times a week.', 'How often do you go to the gym?\nThree times a week.'],
    });
  });

  it('head each chunk with its author, before any context', () => {
    expect(memoryPassages('Three times a week.', '', '', ' Melanie ')).toEqual([
      { seq: 0, text: 'Melanie: Three times a week.', embed: ['Melanie: Three times a week.'] },
    ]);
    const [passage] = memoryPassages('Three times a week.', '', 'Caroline: How often do you go?', 'Melanie');
    expect(passage?.embed).toEqual(['Melanie: Three times a week.', 'Caroline: How often do you go?\nMelanie: Three times a week.']);
  });

  it('keep the last MAX_CONTEXT_WORDS words of a long context, on every passage', () => {
    const context = Array.from({ length: MAX_CONTEXT_WORDS + 20 }, (_, i) => `c${i}`).join(' ');
    const content = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about topic ${i}.`).join(' ');
    const passages = memoryPassages(content, '', context);
    expect(passages.length).toBeGreaterThan(1);
    for (const passage of passages) {
      const situation = passage.embed[1]?.split('\n')[0] ?? '';
      expect(situation.split(' ')).toHaveLength(MAX_CONTEXT_WORDS);
      expect(situation.startsWith('c20 ')).toBe(true);
      expect(situation.endsWith(`c${MAX_CONTEXT_WORDS + 19}`)).toBe(true);
    }
  });

  it('combine embeddings into one unit vector, in order, across memories', async () => {
    expect(Array.from(passageVector([Float32Array.of(3, 4)]))).toEqual([3, 4]);
    const sum = passageVector([Float32Array.of(1, 0), Float32Array.of(0, 1)]);
    expect(sum[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(sum[1]).toBeCloseTo(Math.SQRT1_2, 6);
    const seen: string[] = [];
    const lists = [memoryPassages('First memory.'), memoryPassages('Second memory.', '', 'Its context.')];
    const [first, second] = await embedPassages(lists, async (texts) => {
      seen.push(...texts);
      return texts.map((text) => (text.includes('Its context') ? Float32Array.of(0, 1) : Float32Array.of(1, 0)));
    });
    expect(seen).toEqual(['First memory.', 'Second memory.', 'Its context.\nSecond memory.']);
    expect(Array.from(first?.[0]?.vector ?? [])).toEqual([1, 0]);
    expect(second?.[0]?.vector[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(second?.[0]?.text).toBe('Second memory.\nIts context.\nSecond memory.');
  });
});

describe('scoring', () => {
  const scoring = scoringFor('builtin/use-lite');

  it('maps raw values monotonically into 0-1 with 0.5 at the midpoint', () => {
    for (const calibration of [scoring.semantic]) {
      expect(calibrate(calibration.midpoint, calibration)).toBeCloseTo(0.5);
      let previous = -1;
      for (let raw = -1; raw <= 3; raw += 0.05) {
        const score = calibrate(raw, calibration);
        expect(score).toBeGreaterThanOrEqual(previous);
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
        previous = score;
      }
    }
  });

  it('models without fitted values get defaults', () => {
    expect(scoringFor('ollama/some-model')).toEqual(scoringFor('another/unknown'));
  });
});
