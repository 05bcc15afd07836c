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
    /** "Who" answered by the tie a line names ("Maria's aunt") when it names no one. */
    readonly tieAnswers?: boolean;
    /** List questions asking for named things answered from the lines that name something. */
    readonly namedLists?: boolean;
    /** Logistic abstention over the answerer's ABSTENTION_SIGNALS: abstain when bias + weights · signals > 0. */
    readonly abstention?: { readonly bias: number; readonly weights: readonly number[] };
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 5, fillerPenalty: 0, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, lineWeights: [0.8301,-0.5226,1.2987,-0.1647,-0.2787,0.486,0.9075,-0.6626,1.9905,0.5842,0.0784,-0.2228,1.4675,0.1789,0.9533,2.5911,0.0732,-0.3731,0.5534,-0.1473,0.1096], listNames: true, namedThings: true, listParts: true, namedLists: true, tieAnswers: true, abstention: { bias: 0.556893, weights: [-0.592474, -0.424503, -2.14029, -0.186299, 1.130214, 0.533172, 0.578171, 0.223376, 2.373863, 2.597024, 2.036628] } },
  calibration: {
    facts: [],
    passages: [[0.467, 0.078], [0.678, 0.146], [0.759, 0.212], [0.8, 0.284], [0.846, 0.308], [0.89, 0.373], [0.938, 0.529], [0.987, 0.635]],
  },
};
