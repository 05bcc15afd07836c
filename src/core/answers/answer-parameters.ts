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
    /** Logistic abstention over the answerer's ABSTENTION_SIGNALS: abstain when bias + weights · signals > 0. */
    readonly abstention?: { readonly bias: number; readonly weights: readonly number[] };
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 3, fillerPenalty: 0.3, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, abstention: { bias: 1.233749, weights: [0.296853, -1.690649, -1.956002, 0.817412, -0.203397, 0.371369, 4.868507] } },
  calibration: {
    facts: [],
    passages: [[0.622, 0.082], [0.708, 0.082], [0.743, 0.082], [0.778, 0.127], [0.829, 0.248], [0.913, 0.455], [0.978, 0.518]],
  },
};
