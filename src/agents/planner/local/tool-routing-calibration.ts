/**
 * The tool router's logistic and thresholds, fitted by `BENCH_FIT=1 npm run bench:tool-routing` on all
 * agents of the dev set (test/fixtures/tool-routing/dev-set.json) for the embedding model named here; the
 * figures the bench reports come from fits that left the measured agent out. A deployment with another
 * embedding model refits and replaces these numbers (cosines differ in scale between models); see
 * docs/decisions.md "Tool choice by meaning".
 */
export interface ToolRoutingCalibration {
  /** The embedding model the weights were fitted for. */
  model: string;
  bias: number;
  /** One weight per feature of tool-router.ts `TOOL_FEATURES` (a missing one counts 0). */
  weights: Readonly<Record<string, number>>;
  /** Call the best tool (its required arguments present) at or above this probability. */
  callThreshold: number;
  /** Ask for a missing required argument only at or above this probability: the tool is clearly meant. */
  askThreshold: number;
}

/** Fitted on the eight agents of the dev set (406 messages, 1624 message–tool pairs; log loss 0.138 per pair). */
export const TOOL_ROUTING_CALIBRATION: ToolRoutingCalibration = {
  model: 'multilingual-e5-small',
  bias: -10.231,
  weights: {
    card: -0.615,
    cardMargin: 14.054,
    cardLead: 4.224,
    description: 4.001,
    descriptionMargin: 23.177,
    descriptionLead: 8.84,
    request: 2.42,
    requestMargin: 14.94,
    requestLead: 7.259,
    parameters: 4.785,
    parametersMargin: 12.324,
    requestOverQuestion: 7.369,
    lexical: 0.318,
    aboutSubject: -3.134,
    argumentsFound: 1.217,
  },
  /** More likely meant than not. */
  callThreshold: 0.5,
  /** Clearly meant: a wrong clarifying question costs the customer a turn. */
  askThreshold: 0.7,
};
