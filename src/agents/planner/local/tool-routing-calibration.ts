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
  /**
   * A linear probe on the message's own vector (the model's dimensions): `bias + weights · vector` is the
   * log-odds that the message asks for some action at all rather than information or courtesy, whatever
   * the tools. It is the router's `needsTool` feature (0 without a probe, or for a vector of another size).
   */
  needsTool?: { bias: number; weights: readonly number[] };
}

/**
 * Fitted on the eight agents of the dev set (406 messages, 1624 message–tool pairs; log loss 0.130 per
 * pair). Held-out figures (leave-one-agent-out): see docs/decisions.md.
 */
export const TOOL_ROUTING_CALIBRATION: ToolRoutingCalibration = {
  model: 'multilingual-e5-small',
  bias: -11.157,
  weights: {
    card: -0.897,
    cardMargin: 11.902,
    cardLead: 3.121,
    description: 1.703,
    descriptionMargin: 19.164,
    descriptionLead: 5.72,
    clause: 3.104,
    clauseMargin: 15.341,
    clauseLead: 7.122,
    request: 2.754,
    requestMargin: 12.64,
    requestLead: 6.772,
    parameters: 5.127,
    parametersMargin: 11.391,
    requestOverQuestion: 6.689,
    lexical: 0.047,
    aboutSubject: -3.08,
    argumentsFound: 1.266,
  },
  /** More likely meant than not. */
  callThreshold: 0.5,
  /** Clearly meant: a wrong clarifying question costs the customer a turn. */
  askThreshold: 0.7,
};
