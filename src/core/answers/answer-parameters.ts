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
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 3, fillerPenalty: 0, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, lineWeights: [1.8767,1.3914,0.8553,-0.4357,-0.4448,0.2791,1.7292,-2.7173,2.3204,-0.2982,-0.1232,-0.3709], listNames: true, namedThings: true, listParts: true, abstention: { bias: 1.018826, weights: [-0.446397, -1.264441, -2.055008, -0.566987, 0.954466, 0.170728, 1.160979, -0.140005, 3.74923, 1.565743, 2.963835] } },
  calibration: {
    facts: [],
    passages: [[0.643, 0.092], [0.727, 0.098], [0.747, 0.135], [0.774, 0.135], [0.829, 0.312], [0.916, 0.462], [0.977, 0.596]],
  },
};
