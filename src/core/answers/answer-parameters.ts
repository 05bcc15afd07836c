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
    /** Logistic abstention over the answerer's ABSTENTION_SIGNALS: abstain when bias + weights · signals > 0. */
    readonly abstention?: { readonly bias: number; readonly weights: readonly number[] };
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.3, abstainOnQuestion: true, listItems: 3, fillerPenalty: 0, abstention: { bias: 1.263947, weights: [0.17536, -1.593069, -1.769, 1.24852, -0.522173, 0.193106] } },
  calibration: {
    facts: [],
    passages: [[0.701, 0.032], [0.769, 0.105], [0.788, 0.143], [0.808, 0.175], [0.854, 0.212], [0.922, 0.393], [0.982, 0.456]],
  },
};
