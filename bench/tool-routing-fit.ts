/**
 * Fitting the tool router's logistic (bench/tool-routing.ts): one row per (message, tool) pair of the dev
 * set, labelled 1 when the tool is the one the message needs. Newton steps (IRLS) with a small L2 penalty
 * on the weights, not the bias. The `needsTool` probe is fitted first, on the messages' vectors.
 */
import { TOOL_FEATURES, type ToolFeatures } from '../src/agents/planner/local/tool-router';
import type { ToolRoutingCalibration } from '../src/agents/planner/local/tool-routing-calibration';
import { round } from './support';
import { solve } from './linear-solve';

export interface FitRow { features: ToolFeatures; y: number }

const vec = (f: ToolFeatures) => [1, ...TOOL_FEATURES.map((k) => f[k])];

export function fitLogistic(rows: Array<{ x: number[]; y: number }>, l2 = 0.05): number[] {
  const d = rows[0]!.x.length;
  let w = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 60; iter++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const { x, y } of rows) {
      const p = 1 / (1 + Math.exp(-x.reduce((a, xi, i) => a + xi * w[i]!, 0)));
      for (let i = 0; i < d; i++) {
        g[i]! += (p - y) * x[i]!;
        for (let j = 0; j < d; j++) H[i]![j]! += p * (1 - p) * x[i]! * x[j]!;
      }
    }
    for (let i = 1; i < d; i++) {
      g[i]! += l2 * w[i]!;
      H[i]![i]! += l2;
    }
    const step = solve(H, g);
    w = w.map((wi, i) => wi - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  return w;
}

/**
 * The calibration fitted on `rows`, with the thresholds of `base` (read off the held-out curve, not fitted) and
 * the `needsTool` probe the rows' feature came from.
 */
export function fitCalibration(
  rows: FitRow[],
  base: ToolRoutingCalibration,
  model: string,
  needsTool?: ToolRoutingCalibration['needsTool'],
): { calibration: ToolRoutingCalibration; logLoss: number } {
  const xy = rows.map((r) => ({ x: vec(r.features), y: r.y }));
  const w = fitLogistic(xy);
  const logLoss =
    xy.reduce((a, { x, y }) => {
      const p = 1 / (1 + Math.exp(-x.reduce((s, xi, i) => s + xi * w[i]!, 0)));
      return a - (y ? Math.log(p) : Math.log(1 - p));
    }, 0) / xy.length;
  return {
    calibration: {
      model,
      bias: round(w[0]!, 3),
      weights: Object.fromEntries(TOOL_FEATURES.map((k, i) => [k, round(w[i + 1]!, 3)])),
      callThreshold: base.callThreshold,
      askThreshold: base.askThreshold,
      ...(needsTool && { needsTool }),
    },
    logLoss,
  };
}

/** Expected calibration error of pairs (probability, label) over 10 equal-width bins. */
export function ece(pairs: Array<{ p: number; y: number }>): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, y: 0 }));
  for (const { p, y } of pairs) {
    const b = bins[Math.min(9, Math.floor(p * 10))]!;
    b.n++;
    b.p += p;
    b.y += y;
  }
  return bins.reduce((a, b) => a + (b.n ? (b.n / pairs.length) * Math.abs(b.p / b.n - b.y / b.n) : 0), 0);
}

/**
 * The `needsTool` probe: a logistic on the message vectors alone (does the message ask for an action at
 * all?), Newton steps with an L2 penalty `l2` on the weights, not the bias. The Hessian (dimension + 1
 * squared) is symmetric positive definite, so each step is a Cholesky solve on flat arrays (the model's
 * 384 dimensions make the generic solver above slow).
 */
export function fitProbe(vectors: readonly Float32Array[], labels: readonly number[], l2 = PROBE_L2): { bias: number; weights: number[] } {
  const n = vectors.length;
  const d = vectors[0]!.length + 1;
  const x = (r: number, i: number) => (i === 0 ? 1 : vectors[r]![i - 1]!);
  const w = new Float64Array(d);
  for (let iter = 0; iter < 50; iter++) {
    const g = new Float64Array(d);
    const h = new Float64Array(d * d);
    const row = new Float64Array(d);
    for (let r = 0; r < n; r++) {
      let z = 0;
      for (let i = 0; i < d; i++) z += (row[i] = x(r, i)) * w[i]!;
      const p = 1 / (1 + Math.exp(-z));
      const s = p * (1 - p);
      for (let i = 0; i < d; i++) {
        g[i]! += (p - labels[r]!) * row[i]!;
        const si = s * row[i]!;
        for (let j = 0; j <= i; j++) h[i * d + j]! += si * row[j]!;
      }
    }
    for (let i = 1; i < d; i++) {
      g[i]! += l2 * w[i]!;
      h[i * d + i]! += l2;
    }
    const step = choleskySolve(h, g, d);
    let largest = 0;
    for (let i = 0; i < d; i++) {
      w[i]! -= step[i]!;
      largest = Math.max(largest, Math.abs(step[i]!));
    }
    if (largest < 1e-7) break;
  }
  return { bias: round(w[0]!, 3), weights: Array.from(w.subarray(1), (v) => round(v, 3)) };
}

/** The L2 penalty of the probe's fit (chosen leave-one-agent-out: 0.03 to 1 give the same figures within 0.01). */
export const PROBE_L2 = 0.1;

/** Solves H·x = g for a symmetric positive definite H of which the lower triangle is filled (row-major). */
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
