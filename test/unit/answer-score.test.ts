import { describe, expect, it } from 'vitest';
import { answerTokens, bestSpanF1, locomoF1, oracleF1, tokenF1 } from '../../bench/lib/answer-score.js';

describe('LoCoMo answer scoring and the span oracle (bench)', () => {
  it('scores token F1 over normalised, stemmed tokens', () => {
    expect(tokenF1('The Long Harbour', 'long harbour')).toBe(1);
    expect(tokenF1('Lantern', 'Lantern by Ada Reyes')).toBeCloseTo(0.4, 5);
    expect(tokenF1('', '')).toBe(1);
    expect(tokenF1('something', '')).toBe(0);
    expect(locomoF1('Paris, Rome', 'Rome, Paris', 1)).toBe(1);
  });

  it('finds the best span of a line, not the whole line', () => {
    const line = 'Cork tiles, which is what yoga rooms usually use';
    expect(tokenF1(line, 'Cork tiles')).toBeLessThan(0.5);
    expect(bestSpanF1(line, answerTokens('Cork tiles'))).toBe(1);
    expect(bestSpanF1('nothing in common here', answerTokens('Cork tiles'))).toBe(0);
    expect(bestSpanF1('', answerTokens('x'))).toBe(0);
  });

  it('takes a multi-hop answer part by part across texts, a single answer from one text', () => {
    const texts = ['We went to Paris in May.', 'Rome was lovely.'];
    expect(oracleF1(texts, 'Paris, Rome', 1)).toBe(1);
    expect(oracleF1(texts, 'Paris, Rome, Oslo', 1)).toBeCloseTo(2 / 3, 5);
    // A single-hop answer must sit in one span of one text.
    expect(oracleF1(texts, 'Paris Rome', 4)).toBeLessThan(1);
    expect(oracleF1([], 'Paris', 4)).toBe(0);
  });
});
