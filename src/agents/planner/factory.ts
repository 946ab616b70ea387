import { AnthropicPlanner } from './remote/anthropic.planner';
import { LocalPlanner } from './local/local.planner';
import { OpenAiPlanner } from './remote/openai.planner';
import type { Planner } from './port';
import type { TextEmbedder } from './local/tool-router';
import { calibrationFitsModel, TOOL_ROUTING_CALIBRATION } from './local/tool-routing-calibration';

/** Planner settings, resolved from the service config at boot. */
export interface PlannerConfig {
  provider: 'local' | 'openai' | 'anthropic';
  /** openai: …/v1 of any compatible server (default the OpenAI API); anthropic: the API origin. */
  baseUrl?: string;
  apiKey?: string;
  /** Required for openai and anthropic. */
  model?: string;
  /** Per model call. */
  timeoutMs: number;
}

const DEFAULT_BASE_URL = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' } as const;

/**
 * The planner for `config`; throws at boot when a remote provider has no model. `embeddings` (the
 * service's query embeddings, when on) lets the local planner choose tools by meaning; tool texts are
 * embedded once through `catalogueEmbeddings` (the longer-timeout port) when given. An embedding model the
 * tool router's calibration was not fitted for leaves tool choice on keywords (`warn` is told once).
 */
export function createPlanner(
  config: PlannerConfig,
  deps: { embeddings?: TextEmbedder; catalogueEmbeddings?: TextEmbedder; warn?: (message: string) => void } = {},
): Planner {
  if (config.provider === 'local') {
    const fits = !deps.embeddings || calibrationFitsModel(deps.embeddings.model);
    if (!fits) deps.warn?.(`Tool choice by keywords: the tool router's calibration is for ${TOOL_ROUTING_CALIBRATION.model}, not ${deps.embeddings!.model} (refit with npm run bench:tool-routing)`);
    return new LocalPlanner({ embeddings: fits ? deps.embeddings : undefined, catalogueEmbeddings: deps.catalogueEmbeddings });
  }
  if (!config.model) throw new Error(`The ${config.provider} planner needs a model name`);
  if (!(config.timeoutMs > 0)) throw new Error(`The ${config.provider} planner needs a positive timeoutMs`);
  const options = {
    baseUrl: config.baseUrl ?? DEFAULT_BASE_URL[config.provider],
    apiKey: config.apiKey,
    model: config.model,
    timeoutMs: config.timeoutMs,
  };
  return config.provider === 'openai' ? new OpenAiPlanner(options) : new AnthropicPlanner(options);
}
