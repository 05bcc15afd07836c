// Written by bench/fit-search.ts (lambda 0.0001, derived weight 0.1, positive weight 64, 3201 queries): do not edit by hand; re-run the script.
import type { SearchModel } from './model.js';

export const FITTED_MODEL: SearchModel = {
  bias: 0,
  weights: {
    similarity: 3.7992,
    coverage: 3.1009,
    allTerms: 0.0425,
    keyword: -0.1051,
    phrase: 1.1075,
    missingNames: 0.2497,
    otherAuthor: -1.2228,
    similarityGap: 3.7992,
    similarityLift: 3.7992,
    vectorRank: 0.0239,
    keywordRank: -0.5308,
    promptCoverage: -0.1839,
    promptSimilarityGap: 4.2399,
    replyCoverage: 0.1655,
    replySimilarityGap: 3.9639,
  },
  calibration: { scale: 0, gap: 0.8477, rank: -0.4496, offset: 2.5661, features: { coverage: 0.7072, allTerms: 3.3679, noWords: -4.216, meaningOnly: 17.0752, meaningSimilarity: 10.8242 } },
};
