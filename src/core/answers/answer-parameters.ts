/**
 * Fitted parameters of the answerers, in one place: the built-in answerer's rules and the confidence
 * calibration, which stands on search's relevance scale. Written by `node --import tsx bench/fit-answers.ts
 * --write` (fitted on the four LoCoMo-dev conversations; it prints each choice's leave-one-conversation-out
 * figures); refit after any change to search scoring or to the answerer.
 *
 * - rules: see AnswerRules (providers/builtin/builtin-language-model.ts).
 * - calibration: [raw, confidence] points per basis, raw ascending (see answer-calibration.ts).
 */
export interface AnswerParameters {
  readonly rules: {
    readonly window: number;
    readonly proximity: number;
    readonly focusWords: number;
    readonly questionPenalty: number;
    readonly abstainOnQuestion: boolean;
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true },
  calibration: {
    facts: [],
    passages: [[0.743, 0.044], [0.809, 0.085], [0.826, 0.086], [0.854, 0.161], [0.894, 0.186], [0.933, 0.288], [0.983, 0.542]],
  },
};
