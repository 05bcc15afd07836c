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
    /** "Why" answered with the reason the line gives. */
    readonly reasons?: boolean;
    /** A question that asks whether answered "Yes" or "No" from its best line. */
    readonly yesNo?: boolean;
    /** With gapWindow: the line that says the longest run of the question's words fills the gap. */
    readonly gapLongest?: boolean;
    /** With gapWindow: "what X" answered with X as a line qualifies it when no line fills the gap. */
    readonly headPhrases?: boolean;
    /** With gapWindow: a question that places its verb's object answered with what a line names there. */
    readonly objectsBefore?: boolean;
    /** A question's short form of a name read as the one name of the memories it starts. */
    readonly shortNames?: boolean;
    /** With namedThings: the line's name nearest the question's words. */
    readonly nearestNames?: boolean;
    /** Untyped answers that only announce what follows their dash answered with what follows. */
    readonly elaborations?: boolean;
    /** Untyped answers less the times they say. */
    readonly timeless?: boolean;
    /** Logistic abstention over the answerer's ABSTENTION_SIGNALS: abstain when bias + weights · signals > 0. */
    readonly abstention?: { readonly bias: number; readonly weights: readonly number[] };
  };
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
}

export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 5, fillerPenalty: 0, speakerWeight: 0.1, newsWeight: 0.2, trimEcho: true, quotedTitles: true, shortNames: true, lineWeights: [0.8747,-0.5383,1.2653,-0.1686,-0.2839,0.4754,0.8966,-0.6661,1.9667,0.5775,0.1197,-0.24,1.4211,0.1742,0.9739,2.5479,0.1671,-0.3062,0.4631,-0.1416,0.1347], listNames: true, namedThings: true, listParts: true, namedLists: true, tieAnswers: true, gapRun: 1, gapWindow: 5, reasons: true, yesNo: true, gapLongest: true, headPhrases: true, objectsBefore: true, elaborations: true, timeless: true, nearestNames: true, abstention: { bias: 0.375543, weights: [-0.324755, -0.748928, -2.053965, -0.125077, 1.137129, 0.723404, 0.84204, 0.472325, 2.820636, 2.184199, 2.005921] } },
  calibration: {
    facts: [],
    passages: [[0.457, 0.176], [0.687, 0.231], [0.799, 0.379], [0.85, 0.392], [0.898, 0.471], [0.943, 0.588], [0.987, 0.731]],
  },
};
