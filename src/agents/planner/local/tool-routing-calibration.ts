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
 * Fitted on the nine agents of the dev set (452 messages, 1808 message–tool pairs; log loss 0.130 per
 * pair). Held-out figures (leave-one-agent-out): see docs/decisions.md.
 */
export const TOOL_ROUTING_CALIBRATION: ToolRoutingCalibration = {
  model: 'multilingual-e5-small',
  bias: -8.017,
  weights: {
    card: -1.157,
    cardMargin: 13.491,
    cardLead: 2.289,
    description: 3.227,
    descriptionMargin: 20.541,
    descriptionLead: 6.673,
    clause: 2.197,
    clauseMargin: 17.129,
    clauseLead: 5.643,
    request: 0.283,
    requestMargin: 14.111,
    requestLead: 3.729,
    parameters: 3.164,
    parametersMargin: 12.31,
    requestOverQuestion: 4.009,
    lexical: 0.058,
    aboutSubject: -2.624,
    argumentsFound: 1.166,
    needsTool: 0.355,
  },
  /** One threshold for calling and for asking: held out, it is where precision reaches 0.95 (docs/decisions.md). */
  callThreshold: 0.6,
  askThreshold: 0.6,
  /** The probe on multilingual-e5-small's 384 dimensions. */
  needsTool: {
    bias: -2.438,
    weights: [
      0.205, -1.325, 2.537, 0.259, 3.821, 0.147, -1.583, -0.536, -0.84, 2.584, -0.957, 0.132, 1.609, -0.42, 0.662, -0.186,
      -0.859, -0.989, -2.327, -1.205, -1.267, -0.495, 0.366, -2.442, -0.995, 1.86, -4.137, 2.054, -0.786, -0.949, -0.148, -0.194,
      1.138, 0.959, 0.098, -0.265, -0.217, -0.013, 0.488, 2.959, -2.9, -1.029, -0.704, 2.668, 0.903, -1.841, 1.386, 0.656,
      -1.52, -1.889, -0.163, -0.772, 0.969, -0.83, -0.413, -0.142, 2.033, -0.037, -1.944, 2.024, 1.183, 1.43, -3.809, 1.612,
      1.304, 0.974, -1.687, -1.843, 2.586, -2.88, 0.613, -0.847, -0.32, 0.376, 1.394, 1.919, 2.774, 2.529, 1.232, 3.657,
      2.447, 1.02, 0.878, 1.065, -0.49, 1.038, 0.695, 0.83, 0.657, 1.01, -0.017, 3.725, 1.821, -0.113, -0.604, -1,
      -0.156, -1.877, 1.371, 0.589, -0.975, -1.294, 0.961, -0.713, 0.585, 0.44, -0.87, -1.691, -3.508, -0.234, 1.185, -2.046,
      -0.141, -0.461, 0.944, 1.582, 1.642, -2.456, 0.629, -1.894, 1.845, -0.014, 0.228, -1.159, 1.861, 2.744, 1.329, -1.744,
      2.928, 1.759, 0.028, -0.282, -1.314, -1.699, 0.075, -0.44, -0.223, -2.274, 0.947, -2.327, -1.765, -1.17, -0.147, -3.127,
      -1.547, -1.102, 0.975, 1.543, -0.588, -0.879, -1.145, -4.459, -0.048, -1.716, -0.102, -1.606, -1.565, -0.491, -0.55, 1.317,
      -2.738, -2.373, 0.784, -0.423, -0.174, 2.359, 0.2, -0.297, -1.527, -0.537, 1.42, 0.54, -1.199, -0.785, 0.433, 1.255,
      -2.659, 0.951, 1.249, 1.481, -2.05, -1.05, -0.911, -0.84, 0.311, -0.413, -0.879, -0.114, 0.064, 2.549, 0.906, 0.885,
      1.124, -2.178, 1.552, 2.321, 2.742, -0.277, 1.227, -0.326, 0.335, 0.179, 1.766, -0.066, -0.939, 0.326, -2.711, 2.116,
      0.098, 0.033, 0.087, -1.655, 1.851, 1.757, -2.9, 1.093, -0.762, -1.301, 1.171, 3.298, 1.427, -0.251, 2.878, 0.902,
      -2.398, -0.383, 1.065, -2.401, 0.038, -0.698, 1.321, 0.028, -1.083, -1.14, -2.092, -1.273, 0.547, 0.346, 2.065, -1.145,
      -0.052, 0.577, -0.39, 0.866, 1.698, 0.923, -1.593, -1.932, -1.716, -1.593, 0.924, 1.674, -0.676, -0.858, 1.258, -1.064,
      0.626, -1.274, -0.405, -0.743, 1.013, 1.323, 1.366, -0.213, 0.54, 2.124, -1.551, 0.92, -1.789, 2.407, -0.947, 0.637,
      -0.5, 0.538, 1.314, 1.055, -0.331, 0.24, -2.116, 0.508, 2.739, -1.415, -0.765, 0.455, 2.326, 0.793, -1.465, 0.167,
      0.456, -0.566, 1.725, -0.464, 0.071, -2.247, 1.249, 0.844, 0.354, -1.922, 0.544, -2.26, 1.017, 1.767, 1.684, 0.335,
      -1.413, 0.189, -2.187, -2.866, -2.391, 3.111, 0.066, 1.712, -1.876, 0.836, 0.117, -0.707, 0.92, -3.464, 1.02, -0.114,
      -0.696, -0.99, 0.855, -0.838, 2.432, 2.474, 2.337, -0.083, 1.481, 0.738, -1.531, 1.147, 0.047, 0.771, -0.411, -0.162,
      0.515, -1.649, 0.535, 1.349, 1.37, 2.73, 0.376, -1.636, -0.501, 0.47, 0.607, 1.407, 0.556, 1.026, 0.115, -3.395,
      -0.574, 0.615, 0.288, 0.781, 0.665, -3.137, -1.356, -0.452, 0.69, 1.403, -0.669, -3.223, 0.927, -3.372, 1.312, 0.508,
      -1.162, -2.071, 0.5, -1.909, -0.592, -0.285, 0.576, -0.703, -2.152, -0.28, 1.579, 0.524, 1.501, 0.548, -3.102, -0.084,
    ],
  },
};
