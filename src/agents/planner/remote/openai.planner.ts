import type { PlanOptions, Planner, PlannerDecision, PlannerInput, PlannerUsage } from '../port';
import { malformed, parseStreamEvent, postJson, postStream } from './provider-http';
import {
  approvalHandoff,
  CitationStripStream,
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

  async plan(input: PlannerInput, options?: PlanOptions): Promise<PlannerDecision> {
    const approval = await approvalHandoff(input);
    if (approval) return approval;
    if (options?.onReplyText) return this.planStreaming(input, options.onReplyText, options.signal);
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

  /**
   * The same step with `stream: true`: content deltas go to `onReplyText` as they arrive (citation markers
   * removed), tool-call deltas are assembled by index, usage comes in the last chunk (stream_options).
   */
  private async planStreaming(input: PlannerInput, onReplyText: (text: string) => void, signal?: AbortSignal): Promise<PlannerDecision> {
    const stripped = new CitationStripStream(onReplyText);
    const calls: Array<{ name: string; arguments: string }> = [];
    let text = '';
    const usage: PlannerUsage = { input_tokens: 0, output_tokens: 0 };
    for await (const data of postStream({
      provider: 'openai',
      url: `${this.options.baseUrl.replace(/\/+$/, '')}/chat/completions`,
      headers: this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {},
      body: { ...this.requestBody(input), stream: true, stream_options: { include_usage: true } },
      timeoutMs: this.options.timeoutMs,
      fetch: this.fetch,
      signal,
    })) {
      if (data.trim() === '[DONE]') break;
      const chunk = parseStreamEvent('openai', data);
      if (chunk.usage) {
        usage.input_tokens = Math.max(0, Math.trunc(Number(chunk.usage.prompt_tokens) || 0));
        usage.output_tokens = Math.max(0, Math.trunc(Number(chunk.usage.completion_tokens) || 0));
      }
      const delta = chunk.choices?.[0]?.delta;
      if (!delta || typeof delta !== 'object') continue;
      if (typeof delta.content === 'string' && delta.content) {
        text += delta.content;
        stripped.push(delta.content);
      }
      for (const tc of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        const i = Number.isInteger(tc?.index) ? (tc.index as number) : calls.length;
        if (i < 0 || i > 64) continue;
        const call = (calls[i] ??= { name: '', arguments: '' });
        if (typeof tc.function?.name === 'string') call.name += tc.function.name;
        if (typeof tc.function?.arguments === 'string') call.arguments += tc.function.arguments;
      }
    }
    const named = calls.filter((c) => c && c.name).map((c) => ({ name: c.name, arguments: parseArguments(c.arguments) }));
    if (named.length > 0) return toolCallsDecision(input, named, usage);
    if (!text.trim()) throw malformed('openai', 'content or tool calls');
    stripped.end();
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
