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

export interface AnthropicPlannerOptions {
  /** API origin (without /v1); `/v1/messages` is appended. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  /** Cap on the answer's tokens (the Messages API requires one); default 1024. */
  maxTokens?: number;
  fetch?: typeof fetch;
}

export const ANTHROPIC_VERSION = '2023-06-01';

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

interface Message {
  role: 'user' | 'assistant';
  content: string | Block[];
}

interface MessagesResponse {
  content?: Array<{ type?: string; text?: unknown; id?: string; name?: unknown; input?: unknown }>;
  usage?: { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
}

/**
 * The `anthropic` planner: the Messages API with tools. Same prompt and decision mapping as the openai
 * planner (see remote-prompt.ts): text with [n] citations → reply; tool_use blocks → tool calls; a
 * `handoff_to_human` tool_use → handoff. This run's tool calls go back as assistant tool_use blocks
 * followed by one user message of tool_result blocks. Input usage counts cached prompt tokens too.
 */
export class AnthropicPlanner implements Planner {
  readonly provider = 'anthropic' as const;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: AnthropicPlannerOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async plan(input: PlannerInput, options?: PlanOptions): Promise<PlannerDecision> {
    const approval = await approvalHandoff(input);
    if (approval) return approval;
    if (options?.onReplyText) return this.planStreaming(input, options.onReplyText, options.signal);
    const json = (await postJson({
      provider: 'anthropic',
      url: `${this.options.baseUrl.replace(/\/+$/, '')}/v1/messages`,
      headers: { 'anthropic-version': ANTHROPIC_VERSION, ...(this.options.apiKey ? { 'x-api-key': this.options.apiKey } : {}) },
      body: this.requestBody(input),
      timeoutMs: this.options.timeoutMs,
      fetch: this.fetch,
      signal: options?.signal,
    })) as MessagesResponse;

    if (!json || !Array.isArray(json.content)) throw malformed('anthropic', 'content');
    const u = json.usage ?? {};
    const usage: PlannerUsage = {
      input_tokens: Math.max(0, Math.trunc((u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0))),
      output_tokens: Math.max(0, Math.trunc(u.output_tokens ?? 0)),
    };
    const calls = json.content
      .filter((b) => b?.type === 'tool_use' && typeof b.name === 'string')
      .map((b) => ({ name: b.name as string, arguments: parseArguments(b.input) }));
    if (calls.length > 0) return toolCallsDecision(input, calls, usage);
    const text = json.content.map((b) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('');
    if (!text.trim()) throw malformed('anthropic', 'text or tool use');
    return replyDecision(input, text, usage);
  }

  /**
   * The same step with `stream: true`: text_delta events go to `onReplyText` as they arrive (citation
   * markers removed), tool_use blocks are assembled from input_json_delta events, usage from message_start
   * and message_delta.
   */
  private async planStreaming(input: PlannerInput, onReplyText: (text: string) => void, signal?: AbortSignal): Promise<PlannerDecision> {
    const stripped = new CitationStripStream(onReplyText);
    const blocks: Array<{ type: 'text' | 'tool_use'; name: string; json: string }> = [];
    let text = '';
    const u = { input: 0, output: 0 };
    for await (const data of postStream({
      provider: 'anthropic',
      url: `${this.options.baseUrl.replace(/\/+$/, '')}/v1/messages`,
      headers: { 'anthropic-version': ANTHROPIC_VERSION, ...(this.options.apiKey ? { 'x-api-key': this.options.apiKey } : {}) },
      body: { ...this.requestBody(input), stream: true },
      timeoutMs: this.options.timeoutMs,
      fetch: this.fetch,
      signal,
    })) {
      const event = parseStreamEvent('anthropic', data);
      if (event.type === 'message_start') {
        const mu = event.message?.usage ?? {};
        u.input = (Number(mu.input_tokens) || 0) + (Number(mu.cache_creation_input_tokens) || 0) + (Number(mu.cache_read_input_tokens) || 0);
        u.output = Number(mu.output_tokens) || 0;
      } else if (event.type === 'content_block_start' && Number.isInteger(event.index) && event.index >= 0 && event.index <= 64) {
        const b = event.content_block ?? {};
        blocks[event.index] = { type: b.type === 'tool_use' ? 'tool_use' : 'text', name: typeof b.name === 'string' ? b.name : '', json: '' };
      } else if (event.type === 'content_block_delta') {
        const block = blocks[event.index];
        const d = event.delta ?? {};
        if (d.type === 'text_delta' && typeof d.text === 'string' && d.text) {
          text += d.text;
          stripped.push(d.text);
        } else if (d.type === 'input_json_delta' && typeof d.partial_json === 'string' && block) block.json += d.partial_json;
      } else if (event.type === 'message_delta') {
        if (event.usage && Number.isFinite(Number(event.usage.output_tokens))) u.output = Number(event.usage.output_tokens);
      } else if (event.type === 'error') {
        throw malformed('anthropic', `an error mid-stream (${String(event.error?.message ?? 'unknown')})`);
      } else if (event.type === 'message_stop') break;
    }
    const usage: PlannerUsage = { input_tokens: Math.max(0, Math.trunc(u.input)), output_tokens: Math.max(0, Math.trunc(u.output)) };
    const calls = blocks.filter((b) => b && b.type === 'tool_use' && b.name).map((b) => ({ name: b.name, arguments: parseArguments(b.json || '{}') }));
    if (calls.length > 0) return toolCallsDecision(input, calls, usage);
    if (!text.trim()) throw malformed('anthropic', 'text or tool use');
    stripped.end();
    return replyDecision(input, text, usage);
  }

  /** The Messages API request for one planner step. */
  requestBody(input: PlannerInput): Record<string, unknown> {
    const messages: Message[] = [];
    const push = (m: Message) => {
      const last = messages.at(-1);
      // The API wants alternating roles: consecutive turns of one role are merged.
      if (last && last.role === m.role && typeof last.content === 'string' && typeof m.content === 'string') {
        last.content = `${last.content}\n\n${m.content}`;
      } else messages.push(m);
    };
    for (const turn of input.transcript) push({ role: turn.role === 'customer' ? 'user' : 'assistant', content: turn.content });
    if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: '(The conversation so far follows.)' });
    push({ role: 'user', content: input.message });
    if (input.toolResults.length > 0) {
      messages.push({
        role: 'assistant',
        content: input.toolResults.map((r) => ({ type: 'tool_use', id: toolUseId(r.callId), name: r.tool, input: r.arguments ?? {} })),
      });
      messages.push({
        role: 'user',
        content: input.toolResults.map((r) => ({
          type: 'tool_result',
          tool_use_id: toolUseId(r.callId),
          content: toolResultContent(r),
          ...(r.status === 'ok' ? {} : { is_error: true }),
        })),
      });
    }
    const tools = [...input.tools, HANDOFF_TOOL].map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: { ...t.parameters, type: 'object' },
    }));
    return { model: this.options.model, max_tokens: this.options.maxTokens ?? 1024, system: systemPrompt(input), messages, tools };
  }
}

/** tool_use ids must match ^[a-zA-Z0-9_-]+$. */
const toolUseId = (callId: string) => callId.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call';
