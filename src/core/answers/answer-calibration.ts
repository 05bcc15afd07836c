import { ANSWER_PARAMETERS, type AnswerParameters } from './answer-parameters.js';

/**
 * Turns an answer's raw measure into a calibrated confidence: answers given with 0.8 should be right about
 * 80% of the time. The mapping is piecewise linear through fitted points per basis (facts, passages), so it
 * keeps the raw order; the points live in answer-parameters.ts, which bench/fit-answers.ts writes (fitted on
 * LoCoMo-dev with leave-one-conversation-out) and can refit whenever search's relevance scale changes.
 */
export function answerConfidence(basis: 'facts' | 'passages', raw: number, calibration: AnswerParameters['calibration'] = ANSWER_PARAMETERS.calibration): number {
  const points = calibration[basis];
  const x = Math.max(0, Math.min(1, raw));
  let value = x;
  if (points.length > 0) {
    const first = points[0] as readonly [number, number];
    const last = points[points.length - 1] as readonly [number, number];
    if (x <= first[0]) value = first[1];
    else if (x >= last[0]) value = last[1];
    else {
      for (let i = 1; i < points.length; i++) {
        const [x1, y1] = points[i] as readonly [number, number];
        const [x0, y0] = points[i - 1] as readonly [number, number];
        if (x <= x1) {
          value = x1 === x0 ? y1 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
          break;
        }
      }
    }
  }
  return Math.round(Math.max(0, Math.min(1, value)) * 100) / 100;
}
