/**
 * Turning raw retrieval signals into the API's `score` (0-1, comparable across queries).
 *
 * Semantic: the best passage's cosine similarity. Hybrid: that similarity plus a weighted LanceDB BM25
 * score of the best passage (`cos + keywordWeight · bm25`); a linear blend of absolute values keeps scores
 * comparable across queries, unlike rank fusion (RRF) or per-query normalisation, and it was the best
 * family on both dev sets (see bench/README.md). A memory found only by keywords has a similarity no
 * higher than the weakest vector candidate, which is what it is given.
 *
 * Each raw value is mapped through a logistic curve fitted per embedding model and mode on the dev sets in
 * ../shared/data: `score = 1 / (1 + exp(-slope · (raw - midpoint)))`. The midpoint sits low in the range
 * of raw values of relevant passages ranked in the top 10, so the default threshold 0.5 keeps relevant
 * results and drops the clearly unrelated (scores of typical unrelated passages land near 0.2).
 */
export interface Calibration {
  readonly midpoint: number;
  readonly slope: number;
}

export interface ModelScoring {
  readonly semantic: Calibration;
  readonly hybrid: Calibration;
  /** Weight of the BM25 score added to the cosine similarity in hybrid mode. */
  readonly keywordWeight: number;
}

const SCORING: Record<string, ModelScoring> = {
  // Fitted on LoCoMo-dev (2,080 turns, 582 questions) and SciFact-train (5,183 abstracts, 809 claims):
  // nDCG@10 semantic 0.244 / 0.258, BM25 0.475 / 0.682, hybrid (weight 0.05) 0.490 / 0.689; the weight
  // sits on a plateau (0.04-0.10 are within 0.01 on both). Midpoints: the 5th percentile of raw values of
  // LoCoMo evidence turns ranked in the top 10 (semantic 0.428, hybrid 0.58), so 96% of them score >= 0.5;
  // slopes put the 50th-ranked candidate near 0.3. (Fitted before titles headed every passage; with them,
  // SciFact hybrid is 0.705 at the same weight, and LoCoMo turns have no titles.)
  'builtin/use-lite': {
    semantic: { midpoint: 0.42, slope: 11 },
    hybrid: { midpoint: 0.56, slope: 8.5 },
    keywordWeight: 0.05,
  },
};

/**
 * Models without fitted values (Ollama models): typical cosine ranges of modern sentence embedders
 * (unrelated ~0.3-0.45, related 0.55+). Not tuned on our data: treat the threshold as approximate.
 */
const DEFAULT_SCORING: ModelScoring = {
  semantic: { midpoint: 0.55, slope: 10 },
  hybrid: { midpoint: 0.7, slope: 8 },
  keywordWeight: 0.05,
};

export function scoringFor(modelId: string): ModelScoring {
  return SCORING[modelId] ?? DEFAULT_SCORING;
}

export function calibrate(raw: number, calibration: Calibration): number {
  return 1 / (1 + Math.exp(-calibration.slope * (raw - calibration.midpoint)));
}

export function hybridRaw(similarity: number, bm25: number, scoring: ModelScoring): number {
  return similarity + scoring.keywordWeight * Math.max(0, bm25);
}

export function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
