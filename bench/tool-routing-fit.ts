/**
 * Fitting the tool router's logistic (bench/tool-routing.ts): one row per (message, tool) pair of the dev
 * set, labelled 1 when the tool is the one the message needs. Newton steps (IRLS) with a small L2 penalty
 * on the weights, not the bias.
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

/** The calibration fitted on `rows`, with the thresholds of `base` (they are set by meaning, not fitted). */
export function fitCalibration(rows: FitRow[], base: ToolRoutingCalibration, model: string): { calibration: ToolRoutingCalibration; logLoss: number } {
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
