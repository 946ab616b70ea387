/**
 * Fitting the tool router's logistic (bench/tool-routing.ts): one row per (message, tool) pair of the dev
 * set, labelled 1 when the tool is the one the message needs, fitted by bench/logistic.ts with a small L2
 * penalty on the weights, not the bias. The `needsTool` probe is fitted first, on the messages' vectors.
 */
import { ANY_TOOL_FEATURES, PER_TOOL_FEATURES, TOOL_FEATURES, anyToolFeatures, type ToolFeatures } from '../src/agents/planner/local/tool-router';
import type { ToolRoutingCalibration } from '../src/agents/planner/local/tool-routing-calibration';
import { round } from './support';
import { fitLogisticRegression } from './logistic';

/** One (message, tool) pair; `message`: which message of the fit it belongs to (the two stages group by it). */
export interface FitRow { features: ToolFeatures; y: number; message: number }


/** L2 `l2` on every one of `d` columns but the bias (column 0). */
const weightsPenalty = (d: number, l2: number) => Array.from({ length: d }, (_, i) => (i === 0 ? 0 : l2));

/** The router's logistic on rows whose first column is the bias's constant: L2 `l2` on the weights, not the bias. */
export function fitLogistic(rows: Array<{ x: number[]; y: number }>, l2 = 0.05): number[] {
  const d = rows[0]!.x.length;
  return fitLogisticRegression(rows.map((r) => r.x), rows.map((r) => r.y), { penalty: weightsPenalty(d, l2) });
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
  // Two stages. First, does the message want some tool: one row per message, its tools' features read
  // as a whole (anyToolFeatures).
  const messages = new Map<number, FitRow[]>();
  for (const r of rows) messages.set(r.message, [...(messages.get(r.message) ?? []), r]);
  const any = [...messages.values()].map((rs) => {
    const m = anyToolFeatures(rs.map((r) => r.features));
    return { x: [1, ...ANY_TOOL_FEATURES.map((k) => m[k]!)], y: rs.some((r) => r.y === 1) ? 1 : 0 };
  });
  const a = fitLogistic(any);
  // Then which tool, on the messages that want one: the per-tool features (the message's own are the same
  // for every tool of it and cancel out in the softmax).
  const pairVec = (f: ToolFeatures) => [1, ...PER_TOOL_FEATURES.map((k) => f[k])];
  const which = [...messages.values()].filter((rs) => rs.some((r) => r.y === 1)).flat().map((r) => ({ x: pairVec(r.features), y: r.y }));
  const w = fitLogistic(which);
  const logLoss =
    any.reduce((acc, { x, y }) => {
      const p = 1 / (1 + Math.exp(-x.reduce((s, xi, i) => s + xi * a[i]!, 0)));
      return acc - (y ? Math.log(p) : Math.log(1 - p));
    }, 0) / any.length;
  return {
    calibration: {
      model,
      bias: round(w[0]!, 3),
      weights: Object.fromEntries(TOOL_FEATURES.map((k) => [k, PER_TOOL_FEATURES.includes(k) ? round(w[PER_TOOL_FEATURES.indexOf(k) + 1]!, 3) : 0])),
      callThreshold: base.callThreshold,
      askThreshold: base.askThreshold,
      ...(needsTool && { needsTool }),
      anyTool: { bias: round(a[0]!, 3), weights: Object.fromEntries(ANY_TOOL_FEATURES.map((k, i) => [k, round(a[i + 1]!, 3)])) },
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
 * all?), with an L2 penalty `l2` on the weights, not the bias.
 */
export function fitProbe(vectors: readonly Float32Array[], labels: readonly number[], l2 = PROBE_L2): { bias: number; weights: number[] } {
  const d = vectors[0]!.length + 1;
  const rows = vectors.map((v) => {
    const row = new Float64Array(d);
    row[0] = 1;
    row.set(v, 1);
    return row;
  });
  const w = fitLogisticRegression(rows, labels, { penalty: weightsPenalty(d, l2), maxIterations: 50, tolerance: 1e-7 });
  return { bias: round(w[0]!, 3), weights: w.slice(1).map((v) => round(v, 3)) };
}

/** The L2 penalty of the probe's fit (chosen leave-one-agent-out: 0.03 to 1 give the same figures within 0.01). */
const PROBE_L2 = 0.1;
