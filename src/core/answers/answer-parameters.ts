/**
 * Fitted parameters of the answerers, in one place: the built-in answerer's rules and the confidence
 * calibration, which stands on search's relevance scale. Written by `node --import tsx bench/fit-answers.ts
 * --write` (fitted on the four LoCoMo-dev conversations; it prints each choice's leave-one-conversation-out
 * figures); refit after any change to search scoring or to the answerer.
 *
 * - rules: see AnswerRules (providers/builtin/builtin-language-model.ts); `abstention` is the logistic model
 *   over the answerer's ABSTENTION_SIGNALS, whose bias is set on the fitting folds so that answerable
 *   questions are refused at most 8% of the time (it stands on search's relevance scale too).
 * - calibration: [raw, confidence] points per basis, raw ascending (see answer-calibration.ts).
 */
export interface AnswerParameters {
  readonly rules: {
    readonly window: number;
    readonly proximity: number;
    readonly focusWords: number;
    readonly questionPenalty: number;
    readonly abstainOnQuestion: boolean;
    readonly listItems: number;
    readonly fillerPenalty: number;
    readonly speakerWeight: number;
    readonly newsWeight: number;
    readonly trimEcho: boolean;
    readonly quotedTitles: boolean;
    /** Weights of the answerer's LINE_FEATURES: the fitted line ranker (absent: the hand-set line score). */
    readonly lineWeights?: readonly number[];
    /** List questions answered with the names and titles of their lines. */
    readonly listNames?: boolean;
    /** List answers' items split into the things each line lists ("pottery, painting and camping"). */
    readonly listParts?: boolean;
    /** "What book / which city" answered with the name or title of the best lines. */
    readonly namedThings?: boolean;
    /** Logistic abstention over the answerer's ABSTENTION_SIGNALS: abstain when bias + weights · signals > 0. */
    readonly abstention?: { readonly bias: number; readonly weights: readonly number[] };
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 3, fillerPenalty: 0, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, lineWeights: [1.8503,1.3222,0.848,-0.4388,-0.4659,0.2688,1.6571,-2.8185,2.3273,-0.2028,-0.1192,-0.3687], listNames: true, abstention: { bias: 1.21651, weights: [-0.35139, -1.184605, -2.173463, -0.444623, 0.681268, 0.144939, 1.728143, -0.101607, 5.105079, 1.868868] } },
  calibration: {
    facts: [],
    passages: [[0.668, 0.093], [0.749, 0.115], [0.775, 0.118], [0.828, 0.301], [0.915, 0.462], [0.976, 0.596]],
  },
};
