/**
 * The score of semantic-only search (`hybrid: false`): the best passage's cosine similarity mapped through
 * a logistic curve per embedding model, `score = 1 / (1 + exp(-slope · (raw - midpoint)))`. The midpoint
 * sits low in the range of similarities of relevant passages ranked in the top 10, so the default threshold
 * 0.5 keeps relevant results and drops the clearly unrelated. The default search (words and meaning) is
 * scored by the fitted model of search/model.ts instead.
 */
export interface Calibration {
  readonly midpoint: number;
  readonly slope: number;
}

export interface ModelScoring {
  readonly semantic: Calibration;
}

const SCORING: Record<string, ModelScoring> = {
  // Midpoint: the 5th percentile of the similarities of LoCoMo-dev evidence turns ranked in the top 10;
  // slope: puts the 50th-ranked candidate near 0.3 (bench/README.md).
  'builtin/use-lite': { semantic: { midpoint: 0.42, slope: 11 } },
};

/**
 * Models without fitted values (Ollama models): typical cosine ranges of modern sentence embedders
 * (unrelated ~0.3-0.45, related 0.55+). Not tuned on our data: treat the threshold as approximate.
 */
const DEFAULT_SCORING: ModelScoring = { semantic: { midpoint: 0.55, slope: 10 } };

export function scoringFor(modelId: string): ModelScoring {
  return SCORING[modelId] ?? DEFAULT_SCORING;
}

export function calibrate(raw: number, calibration: Calibration): number {
  return 1 / (1 + Math.exp(-calibration.slope * (raw - calibration.midpoint)));
}

export function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
