import type { Planner, PlannerDecision, PlannerInput, PlannerUsage } from '../port';
import { malformed, postJson } from './provider-http';
import {
  approvalHandoff,
  HANDOFF_TOOL,
  parseArguments,
  replyDecision,
  systemPrompt,
  toolCallsDecision,
  toolResultContent,
} from './remote-prompt';

export interface OpenAiPlannerOptions {
  /** Base URL of an OpenAI-compatible API, up to and including the version (…/v1); `/chat/completions` is appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set (local servers often need none). */
  apiKey?: string;
  model: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface ChatCompletion {
  choices?: Array<{ message?: { content?: unknown; tool_calls?: Array<Partial<ChatToolCall>> } }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/**
 * The `openai` planner: any chat-completions endpoint with tool calling (OpenAI, vLLM, Ollama, llama.cpp,
 * Azure's v1 API). The model sees the agent's instructions, grounding rules, numbered passages and context
 * in the system message, then the transcript, the customer's message and this run's tool calls with their
 * results. It answers with text citing passages as [n] (parsed into `citations` and removed), with tool
 * calls, or with a call to the `handoff_to_human` pseudo-tool. Confidence is derived, not asked for: see
 * replyDecision (max score of cited passages; 0.8 floor after a successful tool; 0.3 when ungrounded).
 */
export class OpenAiPlanner implements Planner {
  readonly provider = 'openai' as const;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: OpenAiPlannerOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async plan(input: PlannerInput, options?: { signal?: AbortSignal }): Promise<PlannerDecision> {
    const approval = await approvalHandoff(input);
    if (approval) return approval;
    const json = (await postJson({
      provider: 'openai',
      url: `${this.options.baseUrl.replace(/\/+$/, '')}/chat/completions`,
      headers: this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {},
      body: this.requestBody(input),
      timeoutMs: this.options.timeoutMs,
      fetch: this.fetch,
      signal: options?.signal,
    })) as ChatCompletion;

    const message = json?.choices?.[0]?.message;
    if (!message || typeof message !== 'object') throw malformed('openai', 'a choice');
    const usage: PlannerUsage = {
      input_tokens: Math.max(0, Math.trunc(json.usage?.prompt_tokens ?? 0)),
      output_tokens: Math.max(0, Math.trunc(json.usage?.completion_tokens ?? 0)),
    };
    const calls = (message.tool_calls ?? [])
      .filter((c) => c && typeof c.function?.name === 'string')
      .map((c) => ({ name: c.function!.name, arguments: parseArguments(c.function!.arguments) }));
    if (calls.length > 0) return toolCallsDecision(input, calls, usage);
    const text = contentText(message.content);
    if (!text.trim()) throw malformed('openai', 'content or tool calls');
    return replyDecision(input, text, usage);
  }

  /** The chat-completions request for one planner step. */
  requestBody(input: PlannerInput): Record<string, unknown> {
    const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(input) }];
    for (const turn of input.transcript) {
      messages.push(turn.role === 'customer' ? { role: 'user', content: turn.content } : { role: 'assistant', content: turn.content });
    }
    messages.push({ role: 'user', content: input.message });
    if (input.toolResults.length > 0) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: input.toolResults.map((r) => ({
          id: r.callId,
          type: 'function',
          function: { name: r.tool, arguments: JSON.stringify(r.arguments ?? {}) },
        })),
      });
      for (const r of input.toolResults) messages.push({ role: 'tool', tool_call_id: r.callId, content: toolResultContent(r) });
    }
    const tools = [...input.tools, HANDOFF_TOOL].map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    return { model: this.options.model, messages, tools, tool_choice: 'auto' };
  }
}

/** Message content as text: a string, or an array of {type: 'text', text} parts (some servers). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
  }
  return '';
}
