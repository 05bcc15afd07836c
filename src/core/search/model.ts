import { z } from 'zod';
import { MemError } from '../../errors.js';
import { scoringFor } from '../scoring.js';
import { FEATURE_NAMES, type FeatureName, type Features } from './features.js';
import { FITTED_MODEL } from './fitted-model.js';

/**
 * The search score, in two stages fitted by `bench/fit-search.ts` (which writes fitted-model.ts) on labelled
 * query-memory pairs of several query shapes (questions, claims, a rare word, a phrase, a title, paraphrases),
 * with cross-validation:
 *
 * 1. Ranking: a logistic model over the features of features.ts, `z = bias + w · x`, fitted on pairs of
 *    the same query: it says which of two memories is the better answer.
 * 2. Calibration: `score = 1 / (1 + e^-(scale · z + gap · (z - z1) + rank · ln(1 + r) + offset + Σ c · input))`,
 *    z1 being the best candidate's value, r the memory's place in the ranking by z (0 = first) and the inputs
 *    those of CALIBRATION_INPUTS below. How likely a memory is to be relevant depends on how the others look
 *    for the same query (the gap and rank terms, which keep a broad query from scoring dozens of memories
 *    above the threshold) and on whether it holds the query's words at all. Results are listed by score.
 */
export interface SearchModel {
  readonly bias: number;
  readonly weights: Readonly<Record<FeatureName, number>>;
  readonly calibration: Calibration;
}

export interface Calibration {
  readonly scale: number;
  readonly gap: number;
  readonly rank: number;
  readonly offset: number;
  /** Weights of the calibration inputs below, taken in besides the ranking value (absent: none). */
  readonly features?: Readonly<Partial<Record<CalibrationInput, number>>>;
}

/**
 * What the calibration sees of a memory besides its ranking value: whether it holds the query's words, and,
 * when it holds none of them, how close it is in meaning and how far it stands out from the query's pack (the
 * similarity separates a paraphrase from a made-up word within one collection; the lift keeps the scale across
 * collections whose similarity levels differ). The ranking value is fitted on pairs of the same
 * query, so it says which memory is better, not whether either answers at all: a memory that holds a third
 * of a query's words and one that holds none but stands out in meaning (a paraphrase) can have the same
 * value and very different chances.
 */
export const CALIBRATION_INPUTS = {
  coverage: (features: Features) => features.coverage,
  allTerms: (features: Features) => features.allTerms,
  noWords: (features: Features) => (features.coverage === 0 ? 1 : 0),
  meaningOnly: (features: Features) => (features.coverage === 0 ? features.similarityLift : 0),
  meaningSimilarity: (features: Features) => (features.coverage === 0 ? features.similarity : 0),
} as const;
export type CalibrationInput = keyof typeof CALIBRATION_INPUTS;
export const CALIBRATION_INPUT_NAMES = Object.keys(CALIBRATION_INPUTS) as CalibrationInput[];

/** The score of the memory ranked `rank` (0-based) with ranking value `z`, the best candidate's being `top`. */
export function calibratedScore(calibration: Calibration, z: number, top: number, rank: number, features?: Features): number {
  let sum = calibration.scale * z + calibration.gap * (z - top) + calibration.rank * Math.log1p(rank) + calibration.offset;
  if (calibration.features && features) {
    for (const [name, weight] of Object.entries(calibration.features) as [CalibrationInput, number][]) sum += weight * CALIBRATION_INPUTS[name](features);
  }
  return 1 / (1 + Math.exp(-sum));
}

/**
 * The similarity below which an embedder's passages are not related (its semantic calibration's midpoint,
 * scoring.ts), subtracted from the similarity feature so that a model fitted with one embedder means
 * roughly the same with another. The weights were fitted with the built-in embedder's level; other models
 * (Ollama's) get the typical level of modern sentence embedders, so their scores are approximate.
 */
export function similarityLevel(modelId: string): number {
  return scoringFor(modelId).semantic.midpoint;
}

export function logit(model: SearchModel, features: Features): number {
  let sum = model.bias;
  for (const [name, weight] of Object.entries(model.weights) as [FeatureName, number][]) sum += weight * features[name];
  return sum;
}

export const DEFAULT_SEARCH_MODEL: SearchModel = FITTED_MODEL;

const ModelFile = z.object({
  bias: z.number().finite(),
  weights: z.object(Object.fromEntries(FEATURE_NAMES.map((name) => [name, z.number().finite()])) as Record<FeatureName, z.ZodNumber>),
  calibration: z.object({
    scale: z.number().finite(),
    gap: z.number().finite(),
    rank: z.number().finite(),
    offset: z.number().finite(),
    features: z.object(Object.fromEntries(CALIBRATION_INPUT_NAMES.map((name) => [name, z.number().finite().optional()])) as Record<CalibrationInput, z.ZodOptional<z.ZodNumber>>).strict().optional(),
  }),
});

/** A model read from a file (the config key search.modelFile): validated, or a VALIDATION_ERROR that says what to do. */
export function parseSearchModel(text: string, origin: string): SearchModel {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new MemError('VALIDATION_ERROR', `${origin} is not JSON: ${(error as Error).message}`, { hint: 'Point search.modelFile at a file written by bench/fit-search.ts, or set it to "".' });
  }
  const parsed = ModelFile.safeParse(json);
  if (!parsed.success) {
    throw new MemError('VALIDATION_ERROR', `${origin} is not a search model: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`, {
      hint: `A model is {"bias", "weights": {${FEATURE_NAMES.join(', ')}}, "calibration": {"scale", "gap", "rank", "offset", "features"?: {name: weight}}} (numbers); set search.modelFile to "" for the built-in one.`,
    });
  }
  return parsed.data;
}
