// Written by bench/fit-search.ts: do not edit by hand (re-run the script).
import type { SearchModel } from './model.js';

export const FITTED_MODEL: SearchModel = {
  bias: -0.5,
  weights: {
    similarity: 8,
    coverage: 2,
    allTerms: 1,
    keyword: 1,
    phrase: 0.5,
    missingNames: -1.3,
    otherAuthor: -2.5,
    similarityGap: 0,
    vectorRank: -0.2,
    keywordRank: -0.2,
    promptCoverage: 0,
    promptSimilarityGap: 0,
    replyCoverage: 0,
    replySimilarityGap: 0,
  },
  calibration: { scale: 1, rank: 0, offset: 0 },
};
