import { solve } from './logistic.js';

/**
 * A listwise (conditional) logit: for each list of rows (the lines of one question), the probability of a row
 * is the softmax of w · x over the list, and the fit minimises the cross-entropy against a target
 * distribution over the list, every list weighing the same, with an L2 penalty. Fitted by Newton's method:
 * the loss is convex, a few dozen features converge in a handful of iterations, deterministically. There is
 * no bias: a constant added to every row of a list changes nothing.
 */
export interface RankList {
  readonly rows: readonly (readonly number[])[];
  /** The target share of each row (non-negative, summing to 1). */
  readonly target: readonly number[];
}

export function fitListwise(lists: readonly RankList[], lambda: number, maxIterations = 50): number[] {
  const d = lists[0]?.rows[0]?.length ?? 0;
  let beta = new Array<number>(d).fill(0);
  const share = 1 / Math.max(1, lists.length);
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    const gradient = new Array<number>(d).fill(0);
    const hessian = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const list of lists) {
      const z = list.rows.map((row) => row.reduce((sum, value, i) => sum + value * (beta[i] ?? 0), 0));
      const top = Math.max(...z);
      const e = z.map((value) => Math.exp(value - top));
      const total = e.reduce((sum, value) => sum + value, 0);
      const p = e.map((value) => value / total);
      const mean = new Array<number>(d).fill(0);
      list.rows.forEach((row, j) => row.forEach((value, i) => (mean[i]! += (p[j] ?? 0) * value)));
      list.rows.forEach((row, j) => {
        const residual = ((p[j] ?? 0) - (list.target[j] ?? 0)) * share;
        const centred = row.map((value, i) => value - (mean[i] ?? 0));
        for (let a = 0; a < d; a++) {
          gradient[a]! += residual * (row[a] ?? 0);
          for (let b = 0; b <= a; b++) hessian[a]![b]! += share * (p[j] ?? 0) * (centred[a] ?? 0) * (centred[b] ?? 0);
        }
      });
    }
    for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) hessian[b]![a] = hessian[a]![b]!;
    for (let i = 0; i < d; i++) {
      gradient[i]! += lambda * (beta[i] ?? 0);
      hessian[i]![i]! += lambda;
    }
    const step = solve(hessian, gradient);
    beta = beta.map((value, i) => value - (step[i] ?? 0));
    if (Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  return beta;
}
