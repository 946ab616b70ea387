import { composeAnswer, round3, type GroundedAnswer } from './local-answer';
import { asksAboutSubjectAnywhere, asksForHuman, asksHowToReach, hasSubstance, isHowTo, smallTalk } from './local-intents';
import { PHRASES, type Phrases } from './local-phrases';
import { followUpQuestion, SUGGESTED_REPLY_MIN_SCORE, type HandoffReason, type JsonSchema, type Planner, type PlannerDecision, type PlannerInput, type PlannerPassage, type PlannerTool, type PlannerToolResult, type PlannerUsage } from '../port';
import { DEFAULT_CONFIDENCE_FLOOR } from '../../agent.schemas';
import { approxTokens, detectLanguage, identifierWords, truncate, type Lang } from '../../../platform/text';
import { extractArguments } from './tool-argument-extraction';
import { matchTool } from './lexical-tool-match';
import {
  ANSWER_OVER_TOOL_CONFIDENCE,
  ASK_CONFIDENCE_BASE,
  ASK_CONFIDENCE_MAX,
  ASK_CONFIDENCE_PER_MATCH,
  EMPTY_TOOL_REPLY_CONFIDENCE,
  LONG_REPLY_CHARS,
  LONG_TOOL_SUMMARY_FIELDS,
  NO_INFORMATION_CONFIDENCE,
  PARTIAL_FAILURE_FACTOR,
  REASK_ARGUMENTS_CONFIDENCE,
  SHORT_REPLY_CHARS,
  SHORT_TOOL_SUMMARY_FIELDS,
  SMALL_TALK_CONFIDENCE,
  TOOL_REPLY_CONFIDENCE,
} from './local-tuning';
import { decideToolAction } from './tool-action';
import { summariseToolResult } from './tool-result-summary';
import { assertToolRoutingCalibration, ToolRouter, type TextEmbedder } from './tool-router';
import { TOOL_ROUTING_CALIBRATION, type ToolRoutingCalibration } from './tool-routing-calibration';

export interface LocalPlannerOptions {
  /** Reply budget on sms and voice, in characters (default SHORT_REPLY_CHARS). */
  shortReplyChars?: number;
  /** Reply budget on chat and email, in characters (default LONG_REPLY_CHARS). */
  longReplyChars?: number;
  /**
   * The service's embedding model: tools are then chosen by meaning (ToolRouter, calibrated). Without it,
   * or when a call to it fails, tools are chosen by keyword match (lexical-tool-match).
   */
  embeddings?: TextEmbedder;
  /** Embeds tool descriptions and anchors, once each (default `embeddings`): a port with a longer timeout. */
  catalogueEmbeddings?: TextEmbedder;
  /** The router's calibration (default: the fit for the service's default model). */
  toolRouting?: ToolRoutingCalibration;
}

/**
 * The `local` planner: deterministic; no network except the embedding model when it is given (tool choice).
 * Well under a millisecond per step once the message vector is known. In order:
 * 1. the customer asks for a person → handoff customer_requested; asked how to reach one ("how can I talk to
 *    someone?"), a passage that clears the floor answers (the contact details) with the offer to connect;
 * 2. tool results exist → rejected/expired approvals hand off; ok results are summarised in plain text
 *    (groundedInTools); failures apologise and answer from passages if they can, else hand off tool_failed;
 * 3. a tool matches the message (or the message answers our question about one) → call it with arguments
 *    read from the text and context, or ask for a missing required argument, unless the passages answer a
 *    how-to question (or a question we cannot call the tool for) well, or the message asks about the tool's
 *    subject (asksAboutSubjectAnywhere) without giving the tool's arguments and a passage reaches the agent's floor. With embeddings the tool is chosen
 *    by meaning (ToolRouter: calibrated probability; called at callThreshold, a missing argument asked for
 *    only at askThreshold); without them, or when they fail, by keywords;
 * 4. greetings and thanks get a short courtesy reply;
 * 5. when the best passage's calibrated score reaches the agent's confidence floor, an answer quoted from
 *    it (what to say is chosen by meaning: composeAnswer), its confidence that score;
 * 6. no passage reaches the floor → handoff no_supporting_source when retrieval is required, else the best
 *    passage's answer at its (low) score, which the run hands off or answers per on_low_confidence, or a
 *    reply offering a person when nothing was retrieved. Whether the agent answers is decided by that
 *    one calibrated number, never by the wording of the question.
 */
export class LocalPlanner implements Planner {
  readonly provider = 'local' as const;
  private readonly router: ToolRouter | undefined;

  constructor(private readonly options: LocalPlannerOptions = {}) {
    if (options.toolRouting) assertToolRoutingCalibration(options.toolRouting);
    this.router = options.embeddings && new ToolRouter(options.embeddings, options.toolRouting ?? TOOL_ROUTING_CALIBRATION, options.catalogueEmbeddings);
  }

  async plan(input: PlannerInput, options?: { signal?: AbortSignal }): Promise<PlannerDecision> {
    options?.signal?.throwIfAborted();
    const step = new LocalStep(input, this.options, this.router && { router: this.router, calibration: this.options.toolRouting ?? TOOL_ROUTING_CALIBRATION, signal: options?.signal });
    return step.decide();
  }
}

interface Routing {
  router: ToolRouter;
  calibration: ToolRoutingCalibration;
  signal?: AbortSignal;
}

/** The tool a text asks for: by meaning (probability calibrated) or, without embeddings, by keywords. */
interface ToolChoice {
  tool: PlannerTool;
  /** semantic: calibrated probability; lexical: the keyword score. */
  score: number;
  source: 'semantic' | 'lexical';
}

class LocalStep {
  private readonly language: Lang;
  private readonly phrases: Phrases;
  private readonly maxChars: number;
  private readonly inputTokens: number;
  private readonly customerTurns: string[];
  /** The question retrieval read: the message, or a follow-up together with the previous question. */
  private readonly question: string;
  private readonly floor: number;

  constructor(
    private readonly input: PlannerInput,
    options: LocalPlannerOptions,
    private readonly routing?: Routing,
  ) {
    this.language = detectLanguage(input.message, input.locale);
    this.phrases = PHRASES[this.language];
    const short = input.channel === 'sms' || input.channel === 'voice';
    this.maxChars = short ? (options.shortReplyChars ?? SHORT_REPLY_CHARS) : (options.longReplyChars ?? LONG_REPLY_CHARS);
    this.customerTurns = input.transcript.filter((t) => t.role === 'customer').map((t) => t.content).reverse();
    this.question = followUpQuestion(input.message, this.customerTurns[0]);
    this.floor = input.confidenceFloor ?? DEFAULT_CONFIDENCE_FLOOR;
    this.inputTokens =
      approxTokens(input.instructions) +
      approxTokens(input.message) +
      input.transcript.reduce((a, t) => a + approxTokens(t.content), 0) +
      input.passages.reduce((a, p) => a + approxTokens(p.title) + approxTokens(p.text), 0) +
      approxTokens(JSON.stringify(input.tools)) +
      approxTokens(JSON.stringify(input.toolResults)) +
      approxTokens(JSON.stringify(input.context));
  }

  async decide(): Promise<PlannerDecision> {
    const { input } = this;
    if (asksForHuman(input.message)) {
      // "How can I talk to someone at Acme?" asks how to reach a person: the contact details answer it when a
      // passage clears the floor, with the offer to connect; a request ("talk to a human") is handed over.
      const howToReach = asksHowToReach(input.message) ? this.answer(this.maxChars - this.phrases.offerPerson.length - 1) : null;
      if (howToReach) return this.reply(`${howToReach.content} ${this.phrases.offerPerson}`, howToReach.citations, false, howToReach.confidence);
      return this.handoff('customer_requested', 'The customer asked to speak to a person.');
    }
    if (input.toolResults.length > 0) return this.fromToolResults();

    const toolStep = await this.toolStep();
    if (toolStep) return toolStep;

    const talk = smallTalk(input.message);
    if (talk) return this.reply(this.phrases[talk], [], false, SMALL_TALK_CONFIDENCE, true);

    const answer = this.answer();
    if (answer) return this.reply(answer.content, answer.citations, false, answer.confidence);
    if (input.retrievalRequired && hasSubstance(input.message)) {
      const top = this.topPassage();
      const why = top
        ? `No knowledge passage reached the confidence floor ${this.floor} (best score ${round3(top.score)}).`
        : 'No knowledge passage was retrieved for this question.';
      return this.handoff('no_supporting_source', why);
    }
    // Retrieval not required: the best passage's answer at its own score (the run applies the floor).
    const below = this.answer(this.maxChars, 0);
    if (below) return this.reply(below.content, below.citations, false, below.confidence);
    return this.reply(`${this.phrases.noInformation} ${this.phrases.offerPerson}`, [], false, NO_INFORMATION_CONFIDENCE);
  }

  private topPassage(): PlannerPassage | null {
    return this.input.passages.reduce<PlannerPassage | null>((a, p) => (!a || p.score > a.score ? p : a), null);
  }

  /**
   * The answer quoted from the best passage when its calibrated score reaches `floor` (the agent's
   * confidence floor): the one decision. A follow-up is read with the previous question (retrieval did the
   * same). When the passage is in another language than the customer's, it is quoted in its own language
   * with one short line in the customer's saying so.
   */
  private answer(maxChars = this.maxChars, floor = this.floor): GroundedAnswer | null {
    const top = this.topPassage();
    if (!top || !(top.score >= floor) || top.score <= 0) return null;
    const topLanguage = writtenIn(`${top.title} ${top.text}`);
    const note = topLanguage && topLanguage !== this.language ? this.phrases.answerFrom(topLanguage) : undefined;
    return composeAnswer({ question: this.question, passage: top, maxChars, note });
  }

  /**
   * The tool `text` asks for. With embeddings: the best tool by calibrated probability, if it reaches the
   * call threshold; a failing embeddings endpoint falls back to keywords for this step.
   */
  private async chooseTool(text: string): Promise<ToolChoice | null> {
    const { input, routing } = this;
    if (routing) {
      try {
        const ranked = await routing.router.rank({ message: text, locale: input.locale, tools: input.tools, signal: routing.signal });
        const action = decideToolAction({ ranked, calibration: routing.calibration, extract: () => ({ arguments: {}, missing: [] }) });
        return action.kind === 'none' ? null : { tool: action.tool, score: action.probability, source: 'semantic' };
      } catch (err) {
        routing.signal?.throwIfAborted();
        void err; // the keyword path answers instead (embeddings down or slow)
      }
    }
    const match = matchTool(text, input.tools, new Set());
    return match && { tool: match.tool, score: match.score, source: 'lexical' };
  }

  private async toolStep(): Promise<PlannerDecision | null> {
    const { input } = this;
    if (input.tools.length === 0) return null;
    let match = await this.chooseTool(input.message);
    let answering = false;
    const lastTurn = input.transcript.at(-1);
    if (!match && lastTurn && lastTurn.role !== 'customer' && lastTurn.content.trim().endsWith('?') && this.customerTurns[0]) {
      match = await this.chooseTool(this.customerTurns[0]);
      answering = match !== null;
    }
    if (!match) return null;
    const extract = (message: string) =>
      extractArguments({ schema: match.tool.parameters, message, earlier: this.customerTurns, context: input.context, locale: input.locale, answering });
    const extracted = extract(input.message);
    if (answering) {
      // Only a reply to our question about that tool's arguments: it must supply what was missing.
      const before = extract('');
      if (before.missing.length === 0 || extracted.missing.length === before.missing.length) return null;
    }
    // The knowledge first: a question about the tool's subject ("…, can I send it back?") is answered by any
    // passage that reaches the agent's floor; otherwise an answer at least ANSWER_OVER_TOOL_CONFIDENCE wins over
    // asking for a missing argument and over a tool for a how-to question.
    const answer = this.answer();
    // A customer who gave every argument the tool needs ("what is the status of my order 12345?") wants the action.
    const suppliedArguments = extracted.missing.length === 0 && Object.keys(extracted.arguments).length > 0;
    const aboutSubject = !answering && !suppliedArguments && asksAboutSubjectAnywhere(input.message);
    if (answer && !suppliedArguments && (aboutSubject || (answer.confidence >= ANSWER_OVER_TOOL_CONFIDENCE && (extracted.missing.length > 0 || isHowTo(input.message))))) {
      return this.reply(answer.content, answer.citations, false, answer.confidence);
    }
    if (extracted.missing.length === 0) {
      const calls = [{ tool: match.tool.name, arguments: extracted.arguments }];
      return { type: 'tool_calls', calls, usage: this.usage(JSON.stringify(calls)) };
    }
    // A clarifying question is a safe step, but only for a tool the customer clearly means.
    if (match.source === 'semantic' && !answering && match.score < this.routing!.calibration.askThreshold) return null;
    const confidence =
      match.source === 'semantic'
        ? round3(Math.min(ASK_CONFIDENCE_MAX, match.score))
        : round3(Math.min(ASK_CONFIDENCE_MAX, ASK_CONFIDENCE_BASE + ASK_CONFIDENCE_PER_MATCH * match.score));
    return this.reply(this.askFor(match.tool.parameters, extracted.missing), [], false, confidence, true);
  }

  private askFor(schema: JsonSchema, missing: string[]): string {
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    const labels = missing.map((name) => describeProperty(name, properties[name] ?? {}));
    const what = labels.length > 1 ? `${labels.slice(0, -1).join(', ')} ${this.phrases.and} ${labels.at(-1)}` : labels[0]!;
    return this.phrases.askFor(what);
  }

  private fromToolResults(): PlannerDecision {
    const latest = new Map<string, PlannerToolResult>();
    for (const r of this.input.toolResults) latest.set(r.callId, r);
    const results = [...latest.values()];
    const rejected = results.find((r) => r.status === 'rejected');
    if (rejected) return this.handoff('approval_rejected', `An approver rejected the call to ${rejected.tool}.`);
    const expired = results.find((r) => r.status === 'expired');
    if (expired) return this.handoff('approval_expired', `The call to ${expired.tool} was not approved or answered in time.`);

    const ok = results.filter((r) => r.status === 'ok');
    const failed = results.filter((r) => r.status === 'error' || r.status === 'timed_out');
    const failure = failed[0];
    const failureNote = failure ? `The call to ${failure.tool} ${failure.status === 'timed_out' ? 'timed out' : `failed${failure.error ? ` (${failure.error.code}: ${failure.error.message})` : ''}`}.` : '';

    if (ok.length > 0) {
      const maxFields = this.maxChars <= SHORT_REPLY_CHARS ? SHORT_TOOL_SUMMARY_FIELDS : LONG_TOOL_SUMMARY_FIELDS;
      const summaries = ok.map((r) => ({ r, s: summariseToolResult(r.result, r, this.input.message, this.phrases, maxFields) }));
      const body = summaries.map(({ r, s }) => (ok.length > 1 ? `${this.phrases.foundFor(humaniseTool(r.tool))} ${s.text}` : s.text)).join(' ');
      const intro = summaries.some((x) => x.s.substantive && !x.s.verbatim) ? `${this.phrases.found} ` : '';
      const partly = failure ? ` ${this.phrases.toolFailedPartly(humaniseTool(failure.tool))} ${this.phrases.offerPerson}` : '';
      const substantive = summaries.some((x) => x.s.substantive);
      const confidence = (substantive ? TOOL_REPLY_CONFIDENCE : EMPTY_TOOL_REPLY_CONFIDENCE) * (failure ? PARTIAL_FAILURE_FACTOR : 1);
      return this.reply(truncate(`${intro}${body}${partly}`, this.maxChars), [], true, round3(confidence));
    }

    // Arguments the tool refused: ask for them again rather than give up.
    const tool = failure && this.input.tools.find((t) => t.name === failure.tool);
    if (failure?.status === 'error' && tool && /invalid|argument|parameter|validation|schema/i.test(failure.error?.code ?? '')) {
      const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
      if (required.length) return this.reply(this.askFor(tool.parameters, required), [], false, REASK_ARGUMENTS_CONFIDENCE, true);
    }
    const apology = this.phrases.toolFailed;
    const answer = this.answer(this.maxChars - apology.length - this.phrases.offerPerson.length - 2);
    if (answer) {
      const content = `${apology} ${answer.content} ${this.phrases.offerPerson}`;
      return this.reply(content, answer.citations, false, round3(answer.confidence * PARTIAL_FAILURE_FACTOR));
    }
    return this.handoff('tool_failed', failureNote || 'A tool call failed.');
  }

  private usage(output: string): PlannerUsage {
    return { input_tokens: this.inputTokens, output_tokens: Math.max(1, approxTokens(output)) };
  }

  private reply(content: string, citations: number[], groundedInTools: boolean, confidence: number, clarifying = false): PlannerDecision {
    const text = truncate(content.replace(/\s+/g, ' ').trim(), this.maxChars);
    return { type: 'reply', content: text, citations, groundedInTools, clarifying, confidence, usage: this.usage(text) };
  }

  private handoff(reason: HandoffReason, why: string): PlannerDecision {
    // The suggestion for the person taking over: a passage that cleared a lower bar, or nothing.
    const answer = this.answer(this.maxChars, SUGGESTED_REPLY_MIN_SCORE);
    const suggestedReply = answer?.content ?? (reason === 'customer_requested' ? this.phrases.connectingOnRequest : '');
    const summary = this.summary(why);
    return { type: 'handoff', reason, summary, suggestedReply, usage: this.usage(summary + suggestedReply) };
  }

  /** A short written summary of the case for the person taking over. */
  private summary(why: string): string {
    const { input } = this;
    const quote = (s: string, n: number) => `"${truncate(s.replace(/\s+/g, ' ').trim(), n)}"`;
    const parts = [why, `Customer on ${input.channel}${input.locale ? ` (${input.locale})` : ''} wrote: ${quote(input.message, 200)}.`];
    const earlier = this.customerTurns.slice(0, 2).reverse();
    if (earlier.length) parts.push(`Earlier: ${earlier.map((t) => quote(t, 120)).join(' / ')}.`);
    const done = input.toolResults.map((r) => `${r.tool} ${r.status}`);
    if (done.length) parts.push(`Tool calls: ${done.join(', ')}.`);
    return truncate(parts.join(' '), 600);
  }
}

/** The language a text is written in when its own words say so (not a guess from a locale or a default). */
function writtenIn(text: string): Lang | null {
  const a = detectLanguage(text, 'en');
  return a === detectLanguage(text, 'de') ? a : null;
}

const humaniseTool = (name: string) => {
  const s = identifierWords(name).join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
};

/** "order number" for order_id described as "The order number."; else the name in words (order ID). */
export function describeProperty(name: string, schema: Record<string, unknown>): string {
  const d = typeof schema.description === 'string' ? schema.description.split(/[,(;:.]|\s[-–]\s|\be\.g\b/)[0]!.trim() : '';
  const cleaned = d.replace(/^(?:the|a|an|your|the customer's|customer's|der|die|das|le|la|les|l'|el|los|las|su|votre|ihre?)\s+/i, '');
  if (cleaned && cleaned.split(/\s+/).length <= 6) return /^[A-Z]{2}/.test(cleaned) ? cleaned : cleaned.charAt(0).toLowerCase() + cleaned.slice(1);
  return identifierWords(name)
    .map((w) => (w === 'id' ? 'ID' : w === 'email' ? 'email address' : w))
    .join(' ');
}
