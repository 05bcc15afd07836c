import type { BuiltinLanguageModel } from '../../src/providers/builtin/builtin-language-model.js';
import type { AnswerRequest } from '../../src/providers/spec.js';
import type { AskedQuestion } from './answer-eval.js';
import { locomoF1 } from './answer-score.js';
import type { Evidence } from './evidence.js';
import { fitListwise } from './listwise.js';

/**
 * The fit of AnswerRules.lineWeights: a listwise logit (listwise.ts) over the LINE_FEATURES of the lines
 * retrieval gave each answerable question (categories 1-4). Its target over a question's lines is soft:
 * each line's share is the token F1 of the answer it would give (its typed phrase or the line less its
 * echo, not the whole line) plus a bump when it comes from a turn LoCoMo names as the question's evidence.
 * The answer's F1 says which line gives the words the annotators wrote; the evidence says which turn states
 * the answer when its words are paraphrased (F1 near 0 on every line), so questions the answers alone would
 * teach nothing still teach which memory to read. Questions whose shares sum under MIN_TARGET teach nothing.
 */

/** A question's lines teach nothing when their shares add up to less. */
const MIN_TARGET = 0.2;
/**
 * The evidence bumps and L2 penalties tried; fitLineRanker picks a pair by an inner leave-one-fold-out over
 * the folds it is given (the held-out fold never takes part). Penalties strongest first, so a tie keeps the
 * simpler model.
 */
export const EVIDENCE_BUMPS = [0.05, 0.1, 0.2] as const;
export const LINE_LAMBDAS = [0.01, 0.001, 0.0001] as const;

/** One question's lines: features, the F1 of the answer each would give, whether it states the evidence. */
export interface LineSamples {
  readonly fold: string;
  readonly rows: readonly (readonly number[])[];
  readonly f1: readonly number[];
  readonly evidence: readonly boolean[];
}

export function requestOf(entry: AskedQuestion): AnswerRequest | undefined {
  if (!entry.request) return undefined;
  const { questionVector, ...rest } = entry.request;
  return { ...rest, ...(questionVector ? { questionVector: Float32Array.from(questionVector) } : {}) };
}

/** The target over a question's lines (see above); undefined when it teaches nothing. */
export function lineTarget(sample: Pick<LineSamples, 'f1' | 'evidence'>, bump: number): number[] | undefined {
  const shares = sample.f1.map((value, index) => value + (sample.evidence[index] ? bump : 0));
  const total = shares.reduce((sum, value) => sum + value, 0);
  return total < MIN_TARGET ? undefined : shares.map((value) => value / total);
}

/**
 * Every answerable question's lines (the model gives the features and each line's answer; its rules but
 * trimEcho and quotedTitles do not matter). With `evidence`, the lines of LoCoMo's evidence turns are marked.
 */
export async function lineSamples(asked: readonly AskedQuestion[], model: BuiltinLanguageModel, evidence?: Evidence): Promise<LineSamples[]> {
  const out: LineSamples[] = [];
  for (const entry of asked) {
    const request = requestOf(entry);
    if (!request || entry.category < 1 || entry.category > 4) continue;
    const lines = await model.lines(request);
    if (!lines || lines.length === 0) continue;
    const turns = evidence?.turnsOf(entry) ?? new Set<string>();
    const sources = new Map(request.sources.map((source) => [source.id, source]));
    out.push({
      fold: entry.fold,
      rows: lines.map((line) => line.features),
      f1: lines.map((line) => locomoF1(line.answer, entry.gold, entry.category)),
      evidence: lines.map((line) => {
        const source = sources.get(line.sourceId);
        const turn = source && evidence ? evidence.turnOf(entry.fold, source) : undefined;
        return turn !== undefined && turns.has(turn);
      }),
    });
  }
  return out;
}

function fitWith(samples: readonly LineSamples[], bump: number, lambda: number): number[] | undefined {
  const lists = samples.flatMap((sample) => {
    const target = lineTarget(sample, bump);
    return target ? [{ rows: sample.rows, target }] : [];
  });
  return lists.length === 0 ? undefined : fitListwise(lists, lambda);
}

/** Mean F1 of the answer of the line the weights rank first. */
function topF1(samples: readonly LineSamples[], weights: readonly number[]): number {
  let sum = 0;
  for (const sample of samples) {
    let best = 0;
    let bestValue = -Infinity;
    sample.rows.forEach((row, index) => {
      const value = row.reduce((total, feature, i) => total + feature * (weights[i] ?? 0), 0);
      if (value > bestValue) [best, bestValue] = [index, value];
    });
    sum += sample.f1[best] ?? 0;
  }
  return sum / Math.max(1, samples.length);
}

/**
 * The line ranker fitted on the samples of the folds given (all when `folds` is undefined), with the
 * evidence bump and L2 penalty whose weights, fitted on all but one of those folds, rank best on the one
 * left out (mean F1 of the top line's answer over the inner folds; ties go to the pair tried first).
 */
export function fitLineRanker(sets: readonly LineSamples[], folds?: ReadonlySet<string>): { weights: number[]; bump: number; lambda: number } | undefined {
  const samples = sets.filter((set) => !folds || folds.has(set.fold));
  const inner = [...new Set(samples.map((sample) => sample.fold))];
  let bump: number = EVIDENCE_BUMPS[0];
  let lambda: number = LINE_LAMBDAS[0];
  if (inner.length > 1) {
    let bestValue = -Infinity;
    for (const candidateLambda of LINE_LAMBDAS) {
      for (const candidate of EVIDENCE_BUMPS) {
        const value =
          inner.reduce((sum, fold) => {
            const weights = fitWith(samples.filter((sample) => sample.fold !== fold), candidate, candidateLambda);
            return sum + (weights ? topF1(samples.filter((sample) => sample.fold === fold), weights) : 0);
          }, 0) / inner.length;
        if (value > bestValue + 1e-9) [bump, lambda, bestValue] = [candidate, candidateLambda, value];
      }
    }
  }
  const weights = fitWith(samples, bump, lambda);
  return weights ? { weights: weights.map((weight) => Math.round(weight * 1e4) / 1e4), bump, lambda } : undefined;
}

/** The weights of fitLineRanker. */
export function fitLineWeights(sets: readonly LineSamples[], folds?: ReadonlySet<string>): number[] | undefined {
  return fitLineRanker(sets, folds)?.weights;
}
