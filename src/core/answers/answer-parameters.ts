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
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 3, fillerPenalty: 0, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, lineWeights: [1.8362,1.0892,0.8137,-0.4104,-0.4611,0.2811,1.6303,-2.6872,2.2353,-0.5139,-0.092,-0.709,1.001,0.3224,2.3431], listNames: true, namedThings: true, listParts: true, abstention: { bias: 0.024143, weights: [-0.390915, -0.345605, -2.015119, -0.355695, 1.28159, 0.094203, 0.469668, 0.241907, 3.152602, 1.888151, 2.118151] } },
  calibration: {
    facts: [],
    passages: [[0.664, 0.113], [0.761, 0.192], [0.79, 0.25], [0.833, 0.301], [0.892, 0.333], [0.938, 0.346], [0.986, 0.596]],
  },
};
