// Written by bench/fit-search.ts (lambda 0.0001, derived weight 0.1, positive weight 64, 2955 queries): do not edit by hand; re-run the script.
import type { SearchModel } from './model.js';

export const FITTED_MODEL: SearchModel = {
  bias: 0,
  weights: {
    similarity: 2.5464,
    coverage: 3.328,
    allTerms: 0.0427,
    keyword: -0.5461,
    phrase: 1.6038,
    missingNames: 0.2743,
    otherAuthor: -1.2398,
    similarityGap: 2.5464,
    vectorRank: 0.0016,
    keywordRank: -0.6224,
    promptCoverage: -0.0553,
    promptSimilarityGap: 0.9138,
    replyCoverage: -0.0303,
    replySimilarityGap: 5.0613,
  },
  calibration: { scale: 1.0344, gap: 0.7749, rank: 0, offset: 4.5935 },
};
