// Written by bench/fit-search.ts (lambda 0.0001, derived weight 0.1, positive weight 64, 3162 queries): do not edit by hand; re-run the script.
import type { SearchModel } from './model.js';

export const FITTED_MODEL: SearchModel = {
  bias: 0,
  weights: {
    similarity: 4.269,
    coverage: 3.0913,
    allTerms: 0.0474,
    keyword: -0.222,
    phrase: 1.1059,
    missingNames: 0.2639,
    otherAuthor: -1.2867,
    similarityGap: 4.269,
    vectorRank: -0.0462,
    keywordRank: -0.5548,
    promptCoverage: -0.0591,
    promptSimilarityGap: 3.8636,
    replyCoverage: 0.2635,
    replySimilarityGap: 3.5445,
  },
  calibration: { scale: 1.2729, gap: 1.0286, rank: 0, offset: 3.852 },
};
