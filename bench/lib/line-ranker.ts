import type { BuiltinLanguageModel } from '../../src/providers/builtin/builtin-language-model.js';
import type { AnswerRequest } from '../../src/providers/spec.js';
import type { AskedQuestion } from './answer-eval.js';
import { locomoF1 } from './answer-score.js';
import { fitLogistic, type Sample } from './logistic.js';

/**
 * The fit of AnswerRules.lineWeights: a logistic model of "this line answers best" over the LINE_FEATURES of
 * every line retrieval gave an answerable question (categories 1-4) that a phrase of its line answers. A
 * line is positive when the gold answer's token F1 against it (speaker label left out) is the question's
 * best; questions no line answers (best F1 under MIN_BEST_F1) teach nothing and are left out. Each
 * question weighs the same: its positives share one unit, its negatives another.
 */

/** Below this best line F1 a question's lines are all about equally wrong. */
const MIN_BEST_F1 = 0.2;
/** A small L2 penalty: a dozen features on thousands of lines. */
const LINE_LAMBDA = 0.0001;

export interface LineSamples {
  readonly fold: string;
  readonly samples: readonly Sample[];
}

export function requestOf(entry: AskedQuestion): AnswerRequest | undefined {
  if (!entry.request) return undefined;
  const { questionVector, ...rest } = entry.request;
  return { ...rest, ...(questionVector ? { questionVector: Float32Array.from(questionVector) } : {}) };
}

/** Every answerable question's lines as training samples (the model gives the features; its rules do not matter). */
export async function lineSamples(asked: readonly AskedQuestion[], model: BuiltinLanguageModel): Promise<LineSamples[]> {
  const out: LineSamples[] = [];
  for (const entry of asked) {
    const request = requestOf(entry);
    if (!request || entry.category < 1 || entry.category > 4) continue;
    const lines = await model.lines(request);
    if (!lines || lines.length === 0) continue;
    const f1 = lines.map((line) => locomoF1(line.text.replace(/^[^:]{1,40}:\s/u, ''), entry.gold, entry.category));
    const best = Math.max(...f1);
    if (best < MIN_BEST_F1) continue;
    const positives = f1.filter((value) => value === best).length;
    const negatives = f1.length - positives;
    out.push({
      fold: entry.fold,
      samples: lines.map((line, index) => {
        const top = f1[index] === best;
        return { x: line.features, y: top ? 1 : 0, weight: top ? 1 / positives : 1 / Math.max(1, negatives) };
      }),
    });
  }
  return out;
}

/** The line weights fitted on the samples of the folds given (all when `folds` is undefined). */
export function fitLineWeights(sets: readonly LineSamples[], folds?: ReadonlySet<string>): number[] | undefined {
  const samples = sets.filter((set) => !folds || folds.has(set.fold)).flatMap((set) => set.samples);
  if (samples.length === 0) return undefined;
  return fitLogistic(samples, LINE_LAMBDA).weights.map((weight) => Math.round(weight * 1e4) / 1e4);
}
