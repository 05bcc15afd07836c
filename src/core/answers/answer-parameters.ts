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
    /** With gapRun: the best lines among which the first that fills the gap answers. */
    readonly gapWindow?: number;
    /** Logistic abstention over the answerer's ABSTENTION_SIGNALS: abstain when bias + weights · signals > 0. */
    readonly abstention?: { readonly bias: number; readonly weights: readonly number[] };
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 5, fillerPenalty: 0, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, lineWeights: [0.8483,-0.5194,1.2854,-0.1672,-0.2805,0.4841,0.9047,-0.663,1.9903,0.5864,0.0781,-0.2247,1.4668,0.1751,0.9542,2.5875,0.0689,-0.3711,0.5397,-0.1468,0.1093], listNames: true, namedThings: true, listParts: true, namedLists: true, tieAnswers: true, gapRun: 1, gapWindow: 2, abstention: { bias: 0.609327, weights: [-0.464173, -0.419922, -2.052627, -0.171549, 1.016973, 0.657281, 0.509884, 0.203587, 2.292126, 2.570099, 2.064001] } },
  calibration: {
    facts: [],
    passages: [[0.471, 0.1], [0.614, 0.176], [0.705, 0.177], [0.76, 0.255], [0.79, 0.314], [0.814, 0.314], [0.849, 0.36], [0.894, 0.451], [0.94, 0.51], [0.987, 0.667]],
  },
};
