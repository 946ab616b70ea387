/**
 * The tool router's logistic and thresholds, fitted by `BENCH_FIT=1 npm run bench:tool-routing` on all
 * agents of the dev set (test/fixtures/tool-routing/dev-set.json) for the embedding model named here; the
 * figures the bench reports come from fits that left the measured agent out. A deployment with another
 * embedding model refits and replaces these numbers (cosines differ in scale between models); see
 * docs/decisions/agents-tool-choice.md.
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
  /**
   * Two stages (when present): P(the message wants some tool) = σ(anyTool.bias + Σ anyTool.weights ·
   * messageFeatures), read from the message as a whole (each tool feature's best over the agent's tools, and
   * the message's own cues: tool-router.ts `ANY_TOOL_FEATURES`); then which tool, a softmax over the tools
   * of `bias + Σ weights · features`. A tool's probability is their product. Without it, each tool's
   * probability is σ(bias + Σ weights · features) on its own (the one-stage model).
   */
  anyTool?: { bias: number; weights: Readonly<Record<string, number>> };
}

/**
 * Fitted on the nine agents of the dev set (448 messages, 1792 message–tool pairs; the first stage's log
 * loss 0.173 per message). Held-out figures (leave-one-agent-out): see docs/decisions/agents-tool-choice.md.
 */
export const TOOL_ROUTING_CALIBRATION: ToolRoutingCalibration = {
  model: 'multilingual-e5-small',
  /** Which tool (the second stage): a softmax over the agent's tools of bias + weights · features. */
  bias: -6.572,
  weights: {
    card: -0.897,
    cardMargin: 16.241,
    cardLead: 0.393,
    description: 3.38,
    descriptionMargin: 22.415,
    descriptionLead: 4.669,
    clause: 1.918,
    clauseMargin: 18.078,
    clauseLead: 3.207,
    request: 0.659,
    requestMargin: 16.518,
    requestLead: 1.948,
    parameters: 2.278,
    parametersMargin: 14.935,
    requestOverQuestion: 1.653,
    lexical: 0.831,
    aboutSubject: 0,
    argumentsFound: 0.593,
    needsTool: 0,
    ownThings: 0,
    wantsAction: 0,
    otherLanguage: 0,
  },
  /**
   * One threshold for calling and for asking (held out, two stages: 0.55 gives precision 0.912 / recall 0.819;
   * see docs/decisions/agents-tool-routing-two-stages.md).
   */
  callThreshold: 0.55,
  askThreshold: 0.55,
  /** The probe on multilingual-e5-small's 384 dimensions. */
  needsTool: {
    bias: -2.481,
    weights: [0.202, -1.256, 2.541, 0.272, 3.842, 0.171, -1.53, -0.524, -0.758, 2.552, -0.912, 0.13, 1.609, -0.475, 0.643, -0.189, -0.824, -0.914, -2.39, -1.206, -1.277, -0.423, 0.398, -2.375, -0.963, 1.828, -4.157, 2.021, -0.743, -0.95, -0.084, -0.263, 1.16, 0.953, 0.131, -0.152, -0.209, 0.043, 0.525, 2.997, -2.953, -1.015, -0.657, 2.679, 0.997, -1.73, 1.415, 0.638, -1.502, -1.818, -0.245, -0.748, 0.951, -0.852, -0.392, -0.191, 2.044, -0.036, -1.934, 2.033, 1.162, 1.432, -3.787, 1.655, 1.295, 0.928, -1.679, -1.855, 2.625, -2.861, 0.614, -0.848, -0.322, 0.337, 1.472, 1.832, 2.742, 2.47, 1.335, 3.607, 2.515, 0.864, 0.807, 1.03, -0.55, 1.041, 0.664, 0.83, 0.623, 1.001, 0.023, 3.677, 1.752, -0.059, -0.592, -0.958, -0.214, -1.907, 1.465, 0.499, -0.911, -1.256, 0.998, -0.867, 0.53, 0.45, -0.885, -1.675, -3.509, -0.291, 1.161, -1.964, -0.176, -0.437, 0.905, 1.554, 1.642, -2.439, 0.619, -1.857, 1.771, -0.031, 0.269, -1.151, 1.793, 2.696, 1.296, -1.773, 2.878, 1.795, 0.044, -0.257, -1.267, -1.661, -0.019, -0.491, -0.13, -2.255, 0.895, -2.288, -1.773, -1.165, -0.143, -3.089, -1.577, -1.108, 0.953, 1.518, -0.57, -0.871, -1.171, -4.415, -0.036, -1.713, -0.098, -1.646, -1.506, -0.534, -0.582, 1.287, -2.75, -2.362, 0.769, -0.444, -0.123, 2.36, 0.212, -0.279, -1.513, -0.599, 1.412, 0.577, -1.24, -0.815, 0.406, 1.175, -2.665, 0.999, 1.29, 1.476, -2.058, -0.978, -0.966, -0.794, 0.371, -0.45, -0.952, -0.051, 0.044, 2.554, 0.875, 0.912, 1.139, -2.191, 1.54, 2.302, 2.666, -0.305, 1.256, -0.297, 0.289, 0.21, 1.791, -0.062, -0.922, 0.336, -2.726, 2.03, 0.079, 0.028, 0.093, -1.726, 1.843, 1.684, -2.904, 1.012, -0.763, -1.284, 1.212, 3.245, 1.455, -0.254, 2.912, 0.964, -2.434, -0.369, 1.082, -2.42, 0.041, -0.636, 1.285, 0.028, -1.123, -1.106, -2.05, -1.279, 0.581, 0.281, 2.004, -1.099, -0.05, 0.527, -0.399, 0.862, 1.669, 0.893, -1.659, -1.878, -1.649, -1.649, 0.954, 1.557, -0.618, -0.902, 1.291, -1.127, 0.696, -1.307, -0.358, -0.784, 0.97, 1.224, 1.362, -0.208, 0.582, 2.097, -1.549, 0.883, -1.81, 2.323, -0.955, 0.587, -0.433, 0.563, 1.306, 1.013, -0.328, 0.258, -2.015, 0.514, 2.698, -1.326, -0.754, 0.442, 2.373, 0.78, -1.532, 0.131, 0.468, -0.546, 1.727, -0.454, 0.048, -2.315, 1.231, 0.831, 0.322, -1.916, 0.591, -2.182, 1.054, 1.736, 1.75, 0.255, -1.404, 0.13, -2.158, -2.92, -2.311, 3.075, 0.102, 1.685, -1.844, 0.855, 0.182, -0.69, 0.887, -3.463, 1.04, -0.122, -0.652, -1.032, 0.825, -0.813, 2.485, 2.413, 2.304, 0.004, 1.51, 0.708, -1.495, 1.072, 0.023, 0.769, -0.393, -0.18, 0.511, -1.609, 0.552, 1.375, 1.343, 2.73, 0.351, -1.595, -0.455, 0.443, 0.742, 1.352, 0.534, 1.042, 0.084, -3.4, -0.461, 0.658, 0.339, 0.773, 0.687, -3.039, -1.421, -0.472, 0.682, 1.364, -0.571, -3.209, 0.918, -3.386, 1.332, 0.511, -1.167, -2.061, 0.429, -1.931, -0.643, -0.347, 0.546, -0.668, -2.142, -0.317, 1.617, 0.529, 1.515, 0.559, -3.098, -0.137],
  },
  /** Does the message want some tool (the first stage), from the message as a whole. */
  anyTool: {
    bias: -8.215,
    weights: {
      max_card: 0.882,
      max_cardMargin: 2.504,
      max_cardLead: 3.365,
      max_description: 1.207,
      max_descriptionMargin: 2.741,
      max_descriptionLead: 3.689,
      max_clause: 3.16,
      max_clauseMargin: 3.434,
      max_clauseLead: 5.642,
      max_request: 0.96,
      max_requestMargin: 2.76,
      max_requestLead: 3.443,
      max_parameters: 2.89,
      max_parametersMargin: 1.549,
      max_requestOverQuestion: 1.935,
      max_lexical: 0.537,
      max_argumentsFound: 1.957,
      needsTool: 1.344,
      aboutSubject: -2.508,
      ownThings: 0.84,
      wantsAction: 0.82,
    },
  },
};

/**
 * Whether `calibration` was fitted for the embedding model named `model`: the same name, or a quantised
 * build of it (`-q4`, `-q8`: same vectors up to rounding). Another model's cosines and vector space differ,
 * so its tool choice falls back to keywords until the calibration is refitted for it.
 */
export function calibrationFitsModel(model: string, calibration: ToolRoutingCalibration = TOOL_ROUTING_CALIBRATION): boolean {
  const unquantised = (name: string) => name.replace(/-q\d+(_\w+)*$/i, '');
  return unquantised(model) === unquantised(calibration.model);
}
