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
    /** Logistic abstention over the answerer's ABSTENTION_SIGNALS: abstain when bias + weights · signals > 0. */
    readonly abstention?: { readonly bias: number; readonly weights: readonly number[] };
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 3, abstention: { bias: -0.532977, weights: [0.392012, -0.517822, -1.781771, 1.605672, -0.745217, 0.337349] } },
  calibration: {
    facts: [],
    passages: [[0.693, 0], [0.767, 0.024], [0.794, 0.036], [0.811, 0.107], [0.825, 0.107], [0.86, 0.188], [0.904, 0.196], [0.944, 0.375], [0.991, 0.571]],
  },
};
