/**
 * The benches' one logistic regression: Newton's method (IRLS) with optional per-row weights and a per-column
 * L2 penalty, for every fit the benches make (the calibration's fused score, the tool router and its
 * `needsTool` probe, the retrieval bench's one-feature fusion). The Hessian is symmetric positive
 * definite (positive semi-definite without a penalty), so each step is a Cholesky solve on flat arrays:
 * fast enough for the probe's 385 columns.
 */
export interface LogisticOptions {
  /** Each row's weight in the likelihood (default 1). */
  weights?: readonly number[];
  /** The L2 penalty on each column's coefficient (0 for the bias column; default: no penalty). */
  penalty?: readonly number[];
  maxIterations?: number;
  /** Stops once no coefficient moves by more than this. */
  tolerance?: number;
}

/**
 * The coefficients β maximising Σ wᵢ·log P(yᵢ | xᵢ) − ½ Σ penaltyₖ·βₖ², with P(y = 1 | x) = σ(β·x). Rows
 * hold every column the model reads, a constant column for the bias included.
 */
export function fitLogisticRegression(rows: readonly ArrayLike<number>[], ys: readonly number[], opts: LogisticOptions = {}): number[] {
  const d = rows[0]?.length ?? 0;
  const beta = new Float64Array(d);
  const maxIterations = opts.maxIterations ?? 60;
  const tolerance = opts.tolerance ?? 1e-8;
  for (let iter = 0; iter < maxIterations; iter++) {
    const g = new Float64Array(d);
    const h = new Float64Array(d * d);
    for (let r = 0; r < rows.length; r++) {
      const x = rows[r]!;
      let z = 0;
      for (let i = 0; i < d; i++) z += x[i]! * beta[i]!;
      const p = 1 / (1 + Math.exp(-z));
      const w = opts.weights?.[r] ?? 1;
      const residual = w * (p - ys[r]!);
      const curvature = w * p * (1 - p);
      for (let i = 0; i < d; i++) {
        g[i]! += residual * x[i]!;
        const ci = curvature * x[i]!;
        for (let j = 0; j <= i; j++) h[i * d + j]! += ci * x[j]!;
      }
    }
    for (let i = 0; i < d; i++) {
      const penalty = opts.penalty?.[i] ?? 0;
      g[i]! += penalty * beta[i]!;
      h[i * d + i]! += penalty;
    }
    const step = choleskySolve(h, g, d);
    let largest = 0;
    for (let i = 0; i < d; i++) {
      beta[i]! -= step[i]!;
      largest = Math.max(largest, Math.abs(step[i]!));
    }
    if (!(largest > tolerance)) break;
  }
  return Array.from(beta);
}

/** Solves H·x = g for a symmetric positive definite H whose lower triangle is filled (row-major, d × d). */
function choleskySolve(h: Float64Array, g: Float64Array, d: number): Float64Array {
  const l = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = h[i * d + j]!;
      for (let k = 0; k < j; k++) s -= l[i * d + k]! * l[j * d + k]!;
      l[i * d + j] = i === j ? Math.sqrt(Math.max(s, 1e-12)) : s / l[j * d + j]!;
    }
  }
  const y = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    let s = g[i]!;
    for (let k = 0; k < i; k++) s -= l[i * d + k]! * y[k]!;
    y[i] = s / l[i * d + i]!;
  }
  const out = new Float64Array(d);
  for (let i = d - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < d; k++) s -= l[k * d + i]! * out[k]!;
    out[i] = s / l[i * d + i]!;
  }
  return out;
}
