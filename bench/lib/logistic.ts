/**
 * Weighted logistic regression with an L2 penalty, fitted by Newton's method (iteratively reweighted least
 * squares): a handful of features and tens of thousands of rows converge in a few iterations, exactly and
 * deterministically. The bias is not penalised.
 */
export interface Sample {
  readonly x: readonly number[];
  readonly y: 0 | 1;
  readonly weight: number;
}

export interface Fitted {
  readonly bias: number;
  readonly weights: number[];
  readonly iterations: number;
}

export function fitLogistic(samples: readonly Sample[], lambda: number, maxIterations = 50): Fitted {
  const d = (samples[0]?.x.length ?? 0) + 1;
  let beta = new Array<number>(d).fill(0);
  const totalWeight = samples.reduce((sum, sample) => sum + sample.weight, 0) || 1;
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    const gradient = new Array<number>(d).fill(0);
    const hessian = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const sample of samples) {
      const row = [1, ...sample.x];
      let z = 0;
      for (let i = 0; i < d; i++) z += (beta[i] ?? 0) * (row[i] ?? 0);
      const p = 1 / (1 + Math.exp(-z));
      const w = sample.weight / totalWeight;
      for (let i = 0; i < d; i++) {
        gradient[i]! += w * (p - sample.y) * (row[i] ?? 0);
        for (let j = 0; j <= i; j++) hessian[i]![j]! += w * p * (1 - p) * (row[i] ?? 0) * (row[j] ?? 0);
      }
    }
    for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) hessian[j]![i] = hessian[i]![j]!;
    // The penalty (lambda / 2) |w|^2 is on the mean loss (the weights are normalised to sum to 1).
    for (let i = 1; i < d; i++) {
      gradient[i]! += lambda * (beta[i] ?? 0);
      hessian[i]![i]! += lambda;
    }
    const step = solve(hessian, gradient);
    beta = beta.map((value, i) => value - (step[i] ?? 0));
    if (Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  return { bias: beta[0] ?? 0, weights: beta.slice(1), iterations };
}

/** Gaussian elimination with partial pivoting: solves A x = b. */
export function solve(matrix: readonly (readonly number[])[], vector: readonly number[]): number[] {
  const n = vector.length;
  const a = matrix.map((row, i) => [...row, vector[i] ?? 0]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(a[row]![col]!) > Math.abs(a[pivot]![col]!)) pivot = row;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const head = a[col]![col]!;
    if (Math.abs(head) < 1e-12) continue;
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = a[row]![col]! / head;
      for (let k = col; k <= n; k++) a[row]![k]! -= factor * a[col]![k]!;
    }
  }
  return a.map((row, i) => (Math.abs(row[i]!) < 1e-12 ? 0 : row[n]! / row[i]!));
}
