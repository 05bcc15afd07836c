import { answerConfidence } from '../../src/core/answers/answer-calibration.js';
import type { AnswerParameters } from '../../src/core/answers/answer-parameters.js';
import type { AnswerRules } from '../../src/providers/builtin/builtin-language-model.js';
import type { AnswerRecord } from './answer-eval.js';

/**
 * The fits behind core/answers/answer-parameters.ts, pure so that they run the same on all folds and on each
 * leave-one-conversation-out split: the answerer's rules (a variant of the grid) and the confidence
 * calibration (isotonic regression of "right" on the raw measure, per basis). Right means token F1 >= 0.5;
 * an answer to an unanswerable question (category 5) is wrong, an abstention there is right.
 */

export const RIGHT_F1 = 0.5;
/** False abstention allowed on the training folds: under the target's 10%, with room for held-out noise. */
export const FALSE_ABSTENTION_CEILING = 0.08;
/**
 * What an abstention on an unanswerable question is worth in the choice of rules, against the mean F1 of
 * the answerable ones: a tenth of a right answer.
 */
export const ABSTENTION_WORTH = 0.1;

const ANSWERABLE = (record: AnswerRecord) => record.category >= 1 && record.category <= 4;
const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);
const round3 = (value: number) => Math.round(value * 1000) / 1000;
const isRight = (record: AnswerRecord) => record.category !== 5 && record.f1 >= RIGHT_F1;

export type Calibration = AnswerParameters['calibration'];

/** Isotonic regression (pool adjacent violators) of y on x, as [x, y] knots. */
function isotonic(pairs: readonly { x: number; y: number }[]): [number, number][] {
  const sorted = [...pairs].sort((a, b) => a.x - b.x);
  const blocks: { x: number; y: number; n: number }[] = [];
  for (const pair of sorted) {
    blocks.push({ x: pair.x, y: pair.y, n: 1 });
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1] as { x: number; y: number; n: number };
      const before = blocks[blocks.length - 2] as { x: number; y: number; n: number };
      if (before.y <= last.y) break;
      const n = before.n + last.n;
      blocks.splice(blocks.length - 2, 2, { x: (before.x * before.n + last.x * last.n) / n, y: (before.y * before.n + last.y * last.n) / n, n });
    }
  }
  return blocks.map((block) => [round3(block.x), round3(block.y)]);
}

/** Fewest answers a knot stands for: fewer would let single answers pull the curve around. */
const MIN_PER_KNOT = 15;

function knots(records: readonly AnswerRecord[]): [number, number][] {
  if (records.length < MIN_PER_KNOT) return [];
  // Quantile bins of raw first (each at least MIN_PER_KNOT answers, equal counts), then isotonic over them.
  const sorted = [...records].sort((a, b) => a.raw - b.raw);
  const bins = Math.max(1, Math.min(12, Math.floor(sorted.length / MIN_PER_KNOT)));
  const pairs: { x: number; y: number }[] = [];
  for (let bin = 0; bin < bins; bin++) {
    const slice = sorted.slice(Math.floor((bin * sorted.length) / bins), Math.floor(((bin + 1) * sorted.length) / bins));
    if (slice.length > 0) pairs.push({ x: mean(slice.map((record) => record.raw)), y: mean(slice.map((record) => (isRight(record) ? 1 : 0))) });
  }
  return isotonic(pairs);
}

/** Calibration knots per basis from the answers given (abstentions have no confidence). */
export function fitCalibration(records: readonly AnswerRecord[]): Calibration {
  const given = records.filter((record) => record.answer !== '');
  return { facts: knots(given.filter((record) => record.basis === 'facts')), passages: knots(given.filter((record) => record.basis === 'passages')) };
}

/** The confidence the product gives a record's answer under a calibration. */
export function calibrated(calibration: Calibration, record: AnswerRecord): number {
  return answerConfidence(record.basis, record.raw, calibration);
}

export interface CalibrationRow {
  readonly bin: string;
  readonly n: number;
  readonly meanConfidence: number;
  readonly rightShare: number;
}

/** Ten equal-width bins of confidence: count, mean confidence, share right; and the expected calibration error. */
export function calibrationTable(scored: readonly { confidence: number; right: boolean }[]): { rows: CalibrationRow[]; ece: number } {
  const rows: CalibrationRow[] = [];
  let ece = 0;
  for (let bin = 0; bin < 10; bin++) {
    const inBin = scored.filter((entry) => Math.min(9, Math.floor(entry.confidence * 10)) === bin);
    if (inBin.length === 0) continue;
    const meanConfidence = mean(inBin.map((entry) => entry.confidence));
    const rightShare = mean(inBin.map((entry) => (entry.right ? 1 : 0)));
    ece += (inBin.length / Math.max(1, scored.length)) * Math.abs(meanConfidence - rightShare);
    rows.push({ bin: `${(bin / 10).toFixed(1)}-${((bin + 1) / 10).toFixed(1)}`, n: inBin.length, meanConfidence: round3(meanConfidence), rightShare: round3(rightShare) });
  }
  return { rows, ece: round3(ece) };
}

/** Mean F1 over answerable questions (an abstention scores 0). */
export function meanF1(records: readonly AnswerRecord[]): number {
  return mean(records.filter(ANSWERABLE).map((record) => record.f1));
}

/** Share of unanswerable questions abstained on, and of answerable ones (false abstention). */
export function abstention(records: readonly AnswerRecord[]): { unanswerable: number; falseAbstention: number } {
  const unanswerable = records.filter((record) => record.category === 5);
  const answerable = records.filter(ANSWERABLE);
  return {
    unanswerable: unanswerable.filter((record) => record.answer === '').length / Math.max(1, unanswerable.length),
    falseAbstention: answerable.filter((record) => record.answer === '').length / Math.max(1, answerable.length),
  };
}

/**
 * The variant to ship: the best mean F1 plus ABSTENTION_WORTH per share of unanswerable questions abstained
 * on, among those whose false abstention stays under the ceiling (the first of equals: the grid lists the
 * simpler variants first).
 */
export function pickVariant(perVariant: readonly (readonly AnswerRecord[])[]): number {
  let best = -1;
  let bestValue = -Infinity;
  perVariant.forEach((records, index) => {
    const rates = abstention(records);
    if (rates.falseAbstention > FALSE_ABSTENTION_CEILING) return;
    const value = meanF1(records) + ABSTENTION_WORTH * rates.unanswerable;
    if (value > bestValue + 1e-9) {
      best = index;
      bestValue = value;
    }
  });
  return Math.max(0, best);
}

export interface SetFigures {
  /** F1 per category 1-4 and overall. */
  readonly f1: Record<string, number>;
  readonly counts: Record<string, number>;
  readonly abstention: number;
  readonly falseAbstention: number;
  readonly scored: { confidence: number; right: boolean }[];
}

/** A set's figures with a calibration applied. */
export function figuresOf(records: readonly AnswerRecord[], calibration: Calibration): SetFigures {
  const f1: Record<string, number> = {};
  const counts: Record<string, number> = {};
  for (const category of [1, 2, 3, 4]) {
    const inCategory = records.filter((record) => record.category === category);
    counts[String(category)] = inCategory.length;
    f1[String(category)] = round3(meanF1(inCategory));
  }
  counts.overall = records.filter(ANSWERABLE).length;
  counts['5'] = records.filter((record) => record.category === 5).length;
  f1.overall = round3(meanF1(records));
  const rates = abstention(records);
  return {
    f1,
    counts,
    abstention: round3(rates.unanswerable),
    falseAbstention: round3(rates.falseAbstention),
    scored: records.filter((record) => record.answer !== '').map((record) => ({ confidence: calibrated(calibration, record), right: isRight(record) })),
  };
}

export interface FoldFigures extends SetFigures {
  readonly fold: string;
  readonly rules: AnswerRules;
}

/** Leave one fold out, for every fold: rules and calibration fitted on the others, figures of the one left out. */
export function leaveOneOut(variants: readonly AnswerRules[], perVariant: readonly (readonly AnswerRecord[])[]): FoldFigures[] {
  const folds = [...new Set((perVariant[0] ?? []).map((record) => record.fold))];
  return folds.map((fold) => {
    const index = pickVariant(perVariant.map((records) => records.filter((record) => record.fold !== fold)));
    const records = perVariant[index] ?? [];
    const calibration = fitCalibration(records.filter((record) => record.fold !== fold));
    return { fold, rules: variants[index] as AnswerRules, ...figuresOf(records.filter((record) => record.fold === fold), calibration) };
  });
}

/** Everything fitted on all folds: the parameters the product ships. */
export function fitAll(variants: readonly AnswerRules[], perVariant: readonly (readonly AnswerRecord[])[]): AnswerParameters {
  const index = pickVariant(perVariant);
  return { rules: variants[index] as AnswerRules, calibration: fitCalibration(perVariant[index] ?? []) };
}
