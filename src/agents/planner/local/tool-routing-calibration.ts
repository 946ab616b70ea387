/**
 * The tool router's logistic and thresholds, fitted by `BENCH_FIT=1 npm run bench:tool-routing` on the
 * dev set's `fit` agents (test/fixtures/tool-routing/dev-set.json) for the embedding model named here. A
 * deployment with another embedding model refits and replaces these numbers (cosines differ in scale
 * between models); see docs/decisions.md "Tool choice by meaning".
 */
export interface ToolRoutingCalibration {
  /** The embedding model the weights were fitted for. */
  model: string;
  /** How tool texts are embedded (e5-style models prefix queries and passages differently). */
  toolKind: 'query' | 'passage';
  bias: number;
  weights: { cosine: number; margin: number; anchor: number; lexical: number; howTo: number; argumentsFound: number };
  /** Call the best tool (its required arguments present) at or above this probability. */
  callThreshold: number;
  /** Ask for a missing required argument only at or above this probability: the tool is clearly meant. */
  askThreshold: number;
}

/**
 * Fitted on the telecom, shop and saas agents of the dev set (log loss 0.224 per tool pair); tool texts
 * embedded as queries fitted better than as passages (0.246). Held-out figures: see docs/decisions.md.
 */
export const TOOL_ROUTING_CALIBRATION: ToolRoutingCalibration = {
  model: 'multilingual-e5-small',
  toolKind: 'query',
  bias: -7.28,
  weights: { cosine: 7.068, margin: 21.359, anchor: 12.226, lexical: 2.268, howTo: -2.055, argumentsFound: 0.843 },
  /** More likely meant than not. */
  callThreshold: 0.5,
  /** Clearly meant: a wrong clarifying question costs the customer a turn. */
  askThreshold: 0.7,
};
