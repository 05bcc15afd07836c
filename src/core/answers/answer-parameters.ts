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
    /** Untyped questions answered with the words a line says in their gap, after this many of their words. */
    readonly gapRun?: number;
    /** Logistic abstention over the answerer's ABSTENTION_SIGNALS: abstain when bias + weights · signals > 0. */
    readonly abstention?: { readonly bias: number; readonly weights: readonly number[] };
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 5, fillerPenalty: 0, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, lineWeights: [0.8483,-0.5194,1.2855,-0.1672,-0.2806,0.4842,0.9047,-0.663,1.9907,0.5863,0.0775,-0.2245,1.4669,0.1751,0.9541,2.5875,0.069,-0.3711,0.5396,-0.1468,0.1092], listNames: true, namedThings: true, listParts: true, namedLists: true, tieAnswers: true, gapRun: 1, abstention: { bias: 0.734695, weights: [-0.585938, -0.439081, -2.151935, -0.201335, 1.12011, 0.668553, 0.582379, 0.222543, 2.377505, 2.602072, 2.031234] } },
  calibration: {
    facts: [],
    passages: [[0.468, 0.08], [0.611, 0.157], [0.702, 0.178], [0.76, 0.216], [0.802, 0.307], [0.848, 0.333], [0.891, 0.44], [0.939, 0.569], [0.989, 0.627]],
  },
};
