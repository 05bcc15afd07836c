import { answerConfidence } from '../../src/core/answers/answer-calibration.js';
import type { AnswerParameters } from '../../src/core/answers/answer-parameters.js';
import { abstains, type AbstentionModel, type AnswerRules } from '../../src/providers/builtin/builtin-language-model.js';
import type { AnswerRecord } from './answer-eval.js';
import { fitLogistic } from './logistic.js';

/**
 * The fits behind core/answers/answer-parameters.ts, pure so that they run the same on all folds and on each
 * leave-one-conversation-out split: the answerer's rules (a variant of the grid) and the confidence
 * calibration (isotonic regression of "right" on the raw measure, per basis), and the abstention model (a
 * logistic regression of "unanswerable" on the answerer's signals, its bias moved so that answerable
 * questions are refused at most FALSE_ABSTENTION_CEILING of the time). Right means token F1 >= 0.5; an
 * answer to an unanswerable question (category 5) is wrong, an abstention there is right.
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

/** The L2 penalty of the abstention model: six signals on hundreds of questions need little. */
const ABSTENTION_LAMBDA = 0.001;

/** The records as the answerer gives them with an abstention model: refused answers become abstentions. */
export function withAbstention(records: readonly AnswerRecord[], model: AbstentionModel | undefined): AnswerRecord[] {
  if (!model) return [...records];
  return records.map((record) => (record.answer !== '' && abstains(model, record.signals) ? { ...record, answer: '', f1: 0 } : record));
}

/**
 * The abstention model for one variant's records: logistic regression of "unanswerable" (category 5) on
 * the signals of the passage answers it gave (both classes weighted equally), then the bias moved to the
 * threshold that abstains on the most unanswerable questions while refusing at most the ceiling of the
 * answerable ones (counting the variant's own abstentions); ties go to the higher F1. Undefined when no
 * threshold abstains on anything.
 */
export function fitAbstention(records: readonly AnswerRecord[]): AbstentionModel | undefined {
  const given = records.filter((record) => record.answer !== '' && record.signals && record.category >= 1 && record.category <= 5);
  const positives = given.filter((record) => record.category === 5).length;
  const negatives = given.length - positives;
  if (positives === 0 || negatives === 0) return undefined;
  const fitted = fitLogistic(
    given.map((record) => ({ x: record.signals as readonly number[], y: record.category === 5 ? 1 : 0, weight: record.category === 5 ? 1 / positives : 1 / negatives })),
    ABSTENTION_LAMBDA,
  );
  const value = (record: AnswerRecord) => fitted.weights.reduce((sum, weight, index) => sum + weight * (record.signals?.[index] ?? 0), fitted.bias);
  // Sweep the threshold down through the decision values (highest first): abstaining above it refuses the
  // first k answers. Counts are kept incrementally; equal values are refused together.
  const unanswerable = records.filter((record) => record.category === 5);
  const answerable = records.filter(ANSWERABLE);
  const base = abstention(records);
  let refusedUnanswerable = base.unanswerable * unanswerable.length;
  let refusedAnswerable = base.falseAbstention * answerable.length;
  let f1Sum = answerable.reduce((sum, record) => sum + record.f1, 0);
  const ranked = given.map((record) => ({ record, value: value(record) })).sort((a, b) => b.value - a.value);
  let best: { threshold: number; abstention: number; f1: number } | undefined;
  for (let k = 0; k < ranked.length; k++) {
    const entry = ranked[k] as { record: AnswerRecord; value: number };
    if (entry.record.category === 5) refusedUnanswerable++;
    else {
      refusedAnswerable++;
      f1Sum -= entry.record.f1;
    }
    const next = ranked[k + 1];
    if (next && next.value === entry.value) continue;
    if (refusedAnswerable / Math.max(1, answerable.length) > FALSE_ABSTENTION_CEILING) break;
    const rate = refusedUnanswerable / Math.max(1, unanswerable.length);
    const f1 = f1Sum / Math.max(1, answerable.length);
    if (!best || rate > best.abstention + 1e-9 || (Math.abs(rate - best.abstention) <= 1e-9 && f1 > best.f1 + 1e-9)) {
      best = { threshold: next ? (entry.value + next.value) / 2 : entry.value - 1, abstention: rate, f1 };
    }
  }
  if (!best || best.abstention <= base.unanswerable) return undefined;
  return { bias: round6(fitted.bias - best.threshold), weights: fitted.weights.map(round6) };
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** A variant with its abstention model fitted on the records given, and those records as it answers them. */
interface Fitted {
  readonly index: number;
  readonly abstention: AbstentionModel | undefined;
  readonly records: AnswerRecord[];
}

/**
 * The variant to ship: each with its abstention model fitted on the same records, the best mean F1 plus
 * ABSTENTION_WORTH per share of unanswerable questions abstained on, among those whose false abstention
 * stays under the ceiling (the first of equals: the grid lists the simpler variants first).
 */
export function pickVariant(perVariant: readonly (readonly AnswerRecord[])[]): Fitted {
  let best: Fitted | undefined;
  let bestValue = -Infinity;
  perVariant.forEach((records, index) => {
    if (abstention(records).falseAbstention > FALSE_ABSTENTION_CEILING) return;
    const model = fitAbstention(records);
    const applied = withAbstention(records, model);
    const rates = abstention(applied);
    const value = meanF1(applied) + ABSTENTION_WORTH * rates.unanswerable;
    if (value > bestValue + 1e-9) {
      best = { index, abstention: model, records: applied };
      bestValue = value;
    }
  });
  return best ?? { index: 0, abstention: undefined, records: [...(perVariant[0] ?? [])] };
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

/** Leave one fold out, for every fold: rules, abstention and calibration fitted on the others, figures of the one left out. */
export function leaveOneOut(variants: readonly AnswerRules[], perVariant: readonly (readonly AnswerRecord[])[]): FoldFigures[] {
  const folds = [...new Set((perVariant[0] ?? []).map((record) => record.fold))];
  return folds.map((fold) => heldOut(fold, variants, perVariant));
}

/** One fold's held-out figures: the variant, its abstention and calibration fitted on the other folds' records. */
export function heldOut(fold: string, variants: readonly AnswerRules[], perVariant: readonly (readonly AnswerRecord[])[]): FoldFigures {
  const fitted = pickVariant(perVariant.map((records) => records.filter((record) => record.fold !== fold)));
  const calibration = fitCalibration(fitted.records);
  const records = withAbstention((perVariant[fitted.index] ?? []).filter((record) => record.fold === fold), fitted.abstention);
  return { fold, rules: rulesOf(variants, fitted), ...figuresOf(records, calibration) };
}

/** The index of the variant pickVariant chooses on the records of the folds other than `fold` (all when undefined). */
export function pickedIndex(perVariant: readonly (readonly AnswerRecord[])[], fold?: string): number {
  return pickVariant(fold === undefined ? perVariant : perVariant.map((records) => records.filter((record) => record.fold !== fold))).index;
}

function rulesOf(variants: readonly AnswerRules[], fitted: Fitted): AnswerRules {
  const rules = variants[fitted.index] as AnswerRules;
  return fitted.abstention ? { ...rules, abstention: fitted.abstention } : rules;
}

/** Everything fitted on all folds: the parameters the product ships. */
export function fitAll(variants: readonly AnswerRules[], perVariant: readonly (readonly AnswerRecord[])[]): AnswerParameters {
  const fitted = pickVariant(perVariant);
  return { rules: rulesOf(variants, fitted), calibration: fitCalibration(fitted.records) };
}
