/**
 * Fitted parameters of the answerers that depend on search's relevance scale. Written by
 * `node --import tsx bench/fit-answers.ts` (leave-one-conversation-out on LoCoMo-dev); refit after any change
 * to search scoring. calibration: [raw, confidence] points per basis, raw ascending; abstainBelow: answers
 * with a calibrated confidence under it become noResult.
 */
export const ANSWER_PARAMETERS: {
  readonly calibration: { readonly facts: readonly (readonly [number, number])[]; readonly passages: readonly (readonly [number, number])[] };
  readonly abstainBelow: number;
} = {
  calibration: { facts: [], passages: [] },
  abstainBelow: 0,
};
