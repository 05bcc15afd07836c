/**
 * Turning raw retrieval signals into the API's `score` (0-1, comparable across queries).
 *
 * Cosine similarity is mapped through a logistic curve fitted per embedding model on the dev sets in
 * ../shared/data (see bench/README.md): `score = 1 / (1 + exp(-slope * (cos - midpoint)))`, so 0.5 sits at
 * the similarity where a passage is as likely relevant as not, and the default threshold 0.5 keeps the
 * relevant results. Keyword (BM25) evidence is squashed to 0-1 with `bm25 / (bm25 + k)` and fused as a
 * noisy-OR that can only raise a semantic score, never lower it, so hybrid search keeps every semantic hit.
 */
export interface Calibration {
  readonly midpoint: number;
  readonly slope: number;
}

const CALIBRATIONS: Record<string, Calibration> = {
    // LoCoMo-dev: evidence turns ranked in the top 10 have cosine >= 0.435 (5th percentile) and a typical
  // unrelated turn ~0.29, so 0.42 -> 0.5 keeps ~97% of them and puts unrelated turns near 0.2.
  'builtin/use-lite': { midpoint: 0.42, slope: 11 },
};
const DEFAULT_CALIBRATION: Calibration = { midpoint: 0.5, slope: 10 };

export function calibrationFor(modelId: string): Calibration {
  return CALIBRATIONS[modelId] ?? DEFAULT_CALIBRATION;
}

export function semanticScore(similarity: number, calibration: Calibration): number {
  return 1 / (1 + Math.exp(-calibration.slope * (similarity - calibration.midpoint)));
}

export interface FusionWeights {
  /** BM25 value that maps to 0.5 keyword evidence. */
  readonly bm25Half: number;
  /** How far keyword evidence alone can lift a score (0-1). */
  readonly keywordWeight: number;
}

export const DEFAULT_FUSION: FusionWeights = { bm25Half: 8, keywordWeight: 0.6 };

export function keywordEvidence(bm25: number, weights: FusionWeights = DEFAULT_FUSION): number {
  return bm25 <= 0 ? 0 : bm25 / (bm25 + weights.bm25Half);
}

export function fuse(semantic: number, keyword: number, weights: FusionWeights = DEFAULT_FUSION): number {
  // s + (1 - s)·w·k (a noisy-OR), written so that k = 0 returns s exactly.
  return semantic + (1 - semantic) * weights.keywordWeight * keyword;
}

export function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
