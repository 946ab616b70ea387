import { LocalPlanner } from '../local/local.planner';
import { PHRASES } from '../local/local-phrases';
import type {
  HandoffReason,
  JsonSchema,
  PlannerDecision,
  PlannerInput,
  PlannerPassage,
  PlannerToolResult,
  PlannerUsage,
} from '../port';
import { detectLanguage, stripMarkdown, truncate } from '../../../platform/text';

/** What the openai and anthropic planners share: the prompt, the handoff pseudo-tool and answer mapping. */

export const HANDOFF_TOOL_NAME = 'handoff_to_human';

/** Reasons the model may give; approval outcomes are decided without the model (see approvalHandoff). */
const MODEL_HANDOFF_REASONS: HandoffReason[] = [
  'customer_requested',
  'no_supporting_source',
  'tool_failed',
  'low_confidence',
  'restricted_topic',
  'out_of_scope',
];

export const HANDOFF_TOOL = {
  name: HANDOFF_TOOL_NAME,
  description:
    'Hand the conversation to a human colleague. Use it when the customer asks for a person, when nothing in the passages or tool results supports an answer, or when a tool failed and you cannot help otherwise.',
  parameters: {
    type: 'object',
    properties: {
      reason: { type: 'string', enum: MODEL_HANDOFF_REASONS },
      summary: { type: 'string', description: 'A short written summary of the case for the colleague taking over.' },
      suggested_reply: { type: 'string', description: 'A reply the colleague could send to the customer, in their language.' },
    },
    required: ['reason', 'summary', 'suggested_reply'],
    additionalProperties: false,
  } satisfies JsonSchema,
};

const CHANNEL_RULES: Record<PlannerInput['channel'], string> = {
  sms: 'This is an SMS: plain text only, no markdown, at most 300 characters.',
  voice: 'This is a phone call: short spoken sentences, no markdown, lists or URLs, at most 300 characters.',
  chat: 'This is a chat: be concise (one to three sentences), plain text.',
  email: 'This is an email: a short, polite plain-text body without a subject line.',
};

/** The system prompt: the agent's instructions, grounding rules, context and numbered passages. */
export function systemPrompt(input: PlannerInput): string {
  const noSource = input.retrievalRequired
    ? `call ${HANDOFF_TOOL_NAME} with reason "no_supporting_source"`
    : 'say briefly that you do not have that information and offer to connect the customer with a person';
  const passages = input.passages.length
    ? input.passages.map((p) => `[${p.ref}] ${p.title}: ${truncate(p.text.replace(/\s+/g, ' ').trim(), 4000)}`).join('\n')
    : '(none)';
  return [
    input.instructions.trim(),
    '',
    `You are answering a customer${input.locale ? ` (locale ${input.locale})` : ''}. Reply in the customer's language.`,
    'Rules:',
    '- Answer only from the numbered passages below and from tool results in this conversation. Never use outside knowledge for facts about the business, its products or its policies.',
    '- After each statement taken from a passage, cite it with its number in square brackets, for example [1]. Cite only passages you used.',
    `- If neither the passages nor tool results support an answer, ${noSource}.`,
    '- Call a tool when the request needs it. Never invent argument values: take them from the customer or the context, or ask the customer for a missing required value.',
    `- If a tool failed or timed out, apologise and answer from the passages if you can; otherwise call ${HANDOFF_TOOL_NAME} with reason "tool_failed".`,
    `- If the customer asks to talk to a person, call ${HANDOFF_TOOL_NAME} with reason "customer_requested".`,
    `- ${CHANNEL_RULES[input.channel]}`,
    '',
    `Context (facts you may use): ${JSON.stringify(input.context ?? {})}`,
    '',
    'Passages:',
    passages,
  ].join('\n');
}

/** The content of a tool-result message: the JSON body, or the failure. */
export function toolResultContent(r: PlannerToolResult): string {
  const body =
    r.status === 'ok'
      ? (r.result ?? null)
      : { status: r.status, ...(r.error ? { error: r.error } : {}) };
  return truncate(JSON.stringify(body) ?? 'null', 8000);
}

/**
 * Rejected or expired approvals end the step without asking the model: a person said no (or nobody
 * answered), so the case goes to a person with reason approval_rejected / approval_expired. The local
 * planner writes the summary and suggested reply; usage is zero (no model call).
 */
export async function approvalHandoff(input: PlannerInput): Promise<PlannerDecision | null> {
  if (!input.toolResults.some((r) => r.status === 'rejected' || r.status === 'expired')) return null;
  const decision = await new LocalPlanner().plan(input);
  return { ...decision, usage: { input_tokens: 0, output_tokens: 0 } };
}

const MARKER = /\s*(?:\[\^?|【)(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)(?:\]|】)/g;

/** Strips [n] markers from the model's text; the refs that name a passage become citations. */
export function parseCitations(text: string, passages: PlannerPassage[]): { content: string; citations: number[] } {
  const refs = new Set(passages.map((p) => p.ref));
  const cited = new Set<number>();
  const stripped = text.replace(MARKER, (_m, nums: string) => {
    for (const n of nums.split(/[,;]/)) {
      const ref = Number(n.trim());
      if (refs.has(ref)) cited.add(ref);
    }
    return '';
  });
  const content = stripped
    .replace(/[ \t]+([.,;:!?])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
  return { content, citations: [...cited].sort((a, b) => a - b) };
}

/** Confidence of a reply grounded only in a successful tool result (no passage cited). */
export const TOOL_GROUNDED_CONFIDENCE = 0.8;
/** Confidence of a reply that cites nothing and follows no successful tool result. */
export const UNGROUNDED_CONFIDENCE = 0.3;

/**
 * A remote reply's confidence: the max calibrated score of the passages it cites (the model's words are
 * only as good as their support); at least TOOL_GROUNDED_CONFIDENCE (0.8) when a tool call of this run
 * succeeded; UNGROUNDED_CONFIDENCE (0.3) when it cites nothing and no tool succeeded.
 */
export function replyDecision(input: PlannerInput, text: string, usage: PlannerUsage): PlannerDecision {
  const { content, citations } = parseCitations(text, input.passages);
  const groundedInTools = input.toolResults.some((r) => r.status === 'ok');
  const cited = input.passages.filter((p) => citations.includes(p.ref)).map((p) => Math.min(1, Math.max(0, p.score)));
  let confidence = cited.length ? Math.max(...cited) : UNGROUNDED_CONFIDENCE;
  if (groundedInTools) confidence = Math.max(confidence, TOOL_GROUNDED_CONFIDENCE);
  const plain = input.channel === 'sms' || input.channel === 'voice' ? stripMarkdown(content).replace(/\s+/g, ' ').trim() : content;
  return { type: 'reply', content: plain, citations, groundedInTools, confidence, usage };
}

/** The model called the handoff pseudo-tool. */
export function handoffDecision(input: PlannerInput, args: Record<string, unknown>, usage: PlannerUsage): PlannerDecision {
  const reason = MODEL_HANDOFF_REASONS.includes(args.reason as HandoffReason) ? (args.reason as HandoffReason) : 'low_confidence';
  const summary =
    typeof args.summary === 'string' && args.summary.trim()
      ? args.summary.trim()
      : `Customer on ${input.channel} wrote: "${truncate(input.message, 200)}".`;
  const suggested = typeof args.suggested_reply === 'string' ? parseCitations(args.suggested_reply, input.passages).content : '';
  const suggestedReply = suggested || PHRASES[detectLanguage(input.message, input.locale)].connecting;
  return { type: 'handoff', reason, summary, suggestedReply, usage };
}

/** Tool-call arguments from the model: a JSON object, else {} (the run's validator then rejects them). */
export function parseArguments(raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = raw.trim() ? JSON.parse(raw) : {};
    } catch {
      return {};
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The decision for a list of tool calls from the model: a handoff call wins over the others. */
export function toolCallsDecision(
  input: PlannerInput,
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
  usage: PlannerUsage,
): PlannerDecision {
  const handoff = calls.find((c) => c.name === HANDOFF_TOOL_NAME);
  if (handoff) return handoffDecision(input, handoff.arguments, usage);
  return { type: 'tool_calls', calls: calls.map((c) => ({ tool: c.name, arguments: c.arguments })), usage };
}

/** A citation marker that has begun but not closed: "[", "[^", "【", with digits, spaces, commas so far. */
const OPEN_MARKER = /(?:\[\^?|【)[\d\s,;]*$/;

/**
 * parseCitations for a reply that arrives in pieces: `push` passes on (to `onText`) the text that is
 * final, markers removed and spacing fixed as parseCitations does; `end` passes the rest. Held back: the
 * trailing whitespace (a marker or a punctuation mark may follow and swallow it) and a marker still open.
 * Every cut falls after a non-space character outside a marker, so no marker or run of spaces spans two
 * pieces and the pieces joined equal `parseCitations(whole).content`.
 */
export class CitationStripStream {
  private raw = '';
  private settled = 0;
  private started = false;

  constructor(private readonly onText: (text: string) => void) {}

  push(piece: string): void {
    this.raw += piece;
    let cut = this.raw.length;
    const open = OPEN_MARKER.exec(this.raw.slice(Math.max(this.settled, this.raw.length - 512)));
    if (open) cut = this.raw.length - open[0].length;
    while (cut > this.settled && /\s/.test(this.raw[cut - 1]!)) cut--;
    if (cut > this.settled) this.send(this.raw.slice(this.settled, cut), false);
    this.settled = Math.max(this.settled, cut);
  }

  end(): void {
    this.send(this.raw.slice(this.settled), true);
    this.settled = this.raw.length;
  }

  private send(segment: string, last: boolean) {
    let text = segment.replace(MARKER, '').replace(/[ \t]+([.,;:!?])/g, '$1').replace(/[ \t]{2,}/g, ' ');
    if (!this.started) text = text.trimStart();
    if (last) text = text.trimEnd();
    if (!text) return;
    this.started = true;
    this.onText(text);
  }
}
