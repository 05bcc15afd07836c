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
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 3, fillerPenalty: 0, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, lineWeights: [1.8844,1.3873,0.8536,-0.4363,-0.4465,0.2767,1.7254,-2.7203,2.319,-0.2969,-0.1224,-0.3719], listNames: true, namedThings: true, listParts: true, abstention: { bias: 0.962553, weights: [-0.426998, -1.296577, -2.063488, -0.549262, 0.965125, 0.104365, 1.109481, -0.123005, 3.753599, 1.55583, 2.988826] } },
  calibration: {
    facts: [],
    passages: [[0.643, 0.092], [0.727, 0.098], [0.748, 0.135], [0.774, 0.135], [0.828, 0.31], [0.915, 0.462], [0.977, 0.596]],
  },
};
