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
    /** List questions asking for named things answered from the lines that name something. */
    readonly namedLists?: boolean;
    /** Logistic abstention over the answerer's ABSTENTION_SIGNALS: abstain when bias + weights · signals > 0. */
    readonly abstention?: { readonly bias: number; readonly weights: readonly number[] };
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 3, fillerPenalty: 0, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, lineWeights: [0.8226,-0.5268,1.303,-0.1641,-0.2747,0.4881,0.9166,-0.6599,1.9901,0.5789,0.0791,-0.2229,1.4688,0.1813,0.9443,2.5974,0.0692,-0.3725,0.5598,-0.1462,0.1094], listNames: true, namedThings: true, listParts: true, namedLists: true, abstention: { bias: 0.741275, weights: [-0.612315, -0.421549, -2.148142, -0.197486, 1.18232, 0.226819, 0.580316, 0.213777, 2.380711, 2.575178, 2.053657] } },
  calibration: {
    facts: [],
    passages: [[0.472, 0.1], [0.684, 0.143], [0.761, 0.216], [0.802, 0.275], [0.848, 0.3], [0.89, 0.373], [0.938, 0.51], [0.988, 0.627]],
  },
};
