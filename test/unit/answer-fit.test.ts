import { describe, expect, it } from 'vitest';
import type { AnswerRecord } from '../../bench/lib/answer-eval.js';
import { abstention, FALSE_ABSTENTION_CEILING, fitAbstention, leaveOneOut, withAbstention } from '../../bench/lib/answer-fit.js';
import { abstains, type AnswerRules } from '../../src/providers/builtin/builtin-language-model.js';

/**
 * The abstention fit of bench/fit-answers.ts: what ships in answer-parameters.ts must refuse unanswerable
 * questions without refusing more than the ceiling of answerable ones, on data where the signals tell them
 * apart only in part.
 */

/** A record whose first signal is how unanswerable it looks (the others are noise-free zeros). */
function record(fold: string, category: number, looks: number, f1 = 0.5): AnswerRecord {
  return { fold, category, question: `q${looks}`, gold: category === 5 ? '' : 'gold', answer: 'an answer', basis: 'passages', raw: 0.5, f1: category === 5 ? 0 : f1, ms: 1, signals: [looks, 0, 0, 0, 0, 0] };
}

/** 100 answerable questions spread over [0, 1), 20 unanswerable ones over [0.6, 1.2): they overlap. */
function records(fold = 'a'): AnswerRecord[] {
  return [...Array.from({ length: 100 }, (_, i) => record(fold, 4, i / 100)), ...Array.from({ length: 20 }, (_, i) => record(fold, 5, 0.6 + (i * 0.6) / 20))];
}

describe('the abstention fit', () => {
  it('refuses the most unanswerable questions it can while staying under the false-abstention ceiling', () => {
    const model = fitAbstention(records());
    expect(model).toBeDefined();
    const rates = abstention(withAbstention(records(), model));
    expect(rates.falseAbstention).toBeLessThanOrEqual(FALSE_ABSTENTION_CEILING);
    // Above the 92nd answerable value lie the unanswerable ones from 0.92 on: about half of them.
    expect(rates.unanswerable).toBeGreaterThan(0.4);
    expect(abstains(model, [1.1, 0, 0, 0, 0, 0])).toBe(true);
    expect(abstains(model, [0.2, 0, 0, 0, 0, 0])).toBe(false);
  });

  it('counts the abstentions a variant makes by its own rules against the ceiling', () => {
    const already = records().map((entry, index) => (entry.category === 4 && index % 20 === 0 ? { ...entry, answer: '', f1: 0 } : entry));
    const rates = abstention(withAbstention(already, fitAbstention(already)));
    expect(rates.falseAbstention).toBeLessThanOrEqual(FALSE_ABSTENTION_CEILING);
  });

  it('fits nothing without unanswerable questions, or when refusing would cost answerable ones only', () => {
    expect(fitAbstention(records().filter((entry) => entry.category !== 5))).toBeUndefined();
    expect(fitAbstention([])).toBeUndefined();
    // Unanswerable questions that look answerable: refusing any of them refuses more answerable ones than allowed.
    const hidden = [...Array.from({ length: 100 }, (_, i) => record('a', 4, 1 - i / 1000)), ...Array.from({ length: 10 }, () => record('a', 5, 0))];
    const model = fitAbstention(hidden);
    expect(abstention(withAbstention(hidden, model)).falseAbstention).toBeLessThanOrEqual(FALSE_ABSTENTION_CEILING);
  });

  it('leave one fold out: the held-out fold is answered with a model fitted on the others', () => {
    const variants: AnswerRules[] = [{ window: 1, proximity: 0, focusWords: 0, questionPenalty: 0, abstainOnQuestion: false, listItems: 1, fillerPenalty: 0, speakerWeight: 0, newsWeight: 0, trimEcho: false, quotedTitles: false }];
    const folds = leaveOneOut(variants, [[...records('a'), ...records('b')]]);
    expect(folds.map((fold) => fold.fold)).toEqual(['a', 'b']);
    for (const fold of folds) {
      expect(fold.rules.abstention).toBeDefined();
      expect(fold.falseAbstention).toBeLessThanOrEqual(0.1);
      expect(fold.abstention).toBeGreaterThan(0.4);
    }
  });
});
