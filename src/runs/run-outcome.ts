import { SUGGESTED_REPLY_MIN_SCORE, type HandoffReason, type PlannerDecision } from '../agents/planner/port';
import type { AgentConfig } from '../agents/agent.schemas';
import type { MessageCitation } from '../db/tables/agents';
import { derivedId, IdPrefix } from '../domain/ids';
import type { GuardrailNote, Handoff, StoredRetrievalItem } from './run.schemas';

export interface RunOutcome {
  reply: string | null;
  handoff: Handoff | null;
  confidence: number;
  notes: GuardrailNote[];
  /** Refs (1-based) of the cited passages. */
  citations: number[];
}

/** A tool-grounded answer's confidence: a successful tool result is a strong source. */
const TOOL_GROUNDED_CONFIDENCE = 0.9;

/**
 * The run's last word, with the guardrails that apply when it finishes: a forced handoff (an approval
 * rejected or expired), the planner's own handoff, `retrieval_required` (no answer without a supporting
 * source, clarifying questions excepted) and the confidence floor (hand off when `on_low_confidence`, else
 * answer with a note). Confidence is grounded: a cited answer is worth at most its best cited passage's
 * calibrated score. Pure: the run steps persist what this returns.
 */
export function decideRunOutcome(input: {
  config: AgentConfig;
  decision: PlannerDecision | null;
  retrieval: StoredRetrievalItem[];
  customerMessage: string;
  forcedHandoff?: HandoffReason;
  notes?: GuardrailNote[];
}): RunOutcome {
  const { config, decision, retrieval } = input;
  const notes = [...(input.notes ?? [])];
  const best = retrieval[0];
  const summaryOf = (why: string) => `Customer wrote: "${clip(input.customerMessage, 280)}". ${why}`;
  const handoff = (reason: HandoffReason, why: string, summary?: string, suggested?: string): RunOutcome => ({
    reply: null,
    handoff: {
      reason,
      queue: config.handoff.default_queue,
      summary: summary || summaryOf(why),
      // Grounded in a passage that cleared a lower bar, or empty: never an unrelated article.
      suggested_reply: suggested || (best && best.score >= SUGGESTED_REPLY_MIN_SCORE ? clip(best.snippet, 480) : ''),
    },
    confidence: decision?.type === 'reply' ? clamp(decision.confidence) : best ? best.score : 0,
    notes,
    citations: [],
  });

  if (input.forcedHandoff) return handoff(input.forcedHandoff, `The run stopped: ${input.forcedHandoff.replace(/_/g, ' ')}.`);
  if (!decision || decision.type === 'tool_calls') return handoff('out_of_scope', 'The agent could not reach an answer within its planning steps.');
  if (decision.type === 'handoff') {
    const why = `The agent handed off: ${decision.reason.replace(/_/g, ' ')}.`;
    // Nothing answered well enough: the person taking over sees the passage that came closest.
    const lowScore = (decision.reason === 'no_supporting_source' || decision.reason === 'low_confidence') && best;
    const summary = lowScore ? `${decision.summary || summaryOf(why)} ${nearlyUsed(best)}` : decision.summary;
    return handoff(decision.reason, why, summary, decision.suggestedReply);
  }

  const cited = decision.citations.map((ref) => retrieval[ref - 1]).filter((r): r is StoredRetrievalItem => r !== undefined);
  const grounded = cited.length > 0 || decision.groundedInTools;
  let confidence = clamp(decision.confidence);
  if (cited.length > 0) confidence = Math.min(confidence, Math.max(...cited.map((c) => c.score)));
  else if (decision.groundedInTools) confidence = Math.min(confidence, TOOL_GROUNDED_CONFIDENCE);

  if (config.retrieval_required && !grounded && !decision.clarifying) {
    notes.push({ guardrail: 'retrieval_required', action: 'handoff', detail: 'The reply was not supported by any retrieved passage or tool result.' });
    return { ...handoff('no_supporting_source', 'No passage of the knowledge base supports an answer.'), confidence };
  }
  const floor = config.guardrails.confidence_floor;
  if (!decision.clarifying && confidence < floor) {
    if (config.handoff.on_low_confidence) {
      notes.push({ guardrail: 'confidence_floor', action: 'handoff', detail: `Confidence ${confidence.toFixed(2)} is below the floor ${floor}.` });
      // The person taking over sees what was nearly used: the passage the answer quoted (else the best found).
      const nearly = cited.length ? cited.reduce((a, c) => (c.score > a.score ? c : a)) : best;
      const why = `The best answer found had confidence ${percent(confidence)}, below the floor ${percent(floor)}.${nearly ? ` ${nearlyUsed(nearly)}` : ''}`;
      return { ...handoff('low_confidence', why), confidence };
    }
    notes.push({ guardrail: 'confidence_floor', action: 'answered', detail: `Confidence ${confidence.toFixed(2)} is below the floor ${floor}; answered because on_low_confidence is off.` });
  }
  return { reply: decision.content, handoff: null, confidence, notes, citations: decision.citations.filter((ref) => retrieval[ref - 1] !== undefined) };
}

/** A percentage as the console shows scores ("42 %"). */
const percent = (p: number) => `${Math.round(p * 100)} %`;
/** The passage that was nearly used, for a handoff's summary. */
const nearlyUsed = (p: StoredRetrievalItem) => `Best passage: "${clip(p.title, 80)}" (score ${percent(p.score)}): "${clip(p.snippet, 200)}"`;

const clamp = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/** The sources an answer cites, as its message stores them: title and link, once per link, in the order cited. */
export function messageCitations(items: Pick<StoredRetrievalItem, 'title' | 'url'>[]): MessageCitation[] {
  const out: MessageCitation[] = [];
  for (const item of items) {
    const url = item.url ?? null;
    const title = item.title || url || '';
    if (out.some((c) => (url !== null ? c.url === url : c.url === null && c.title === title))) continue;
    out.push({ title, url });
  }
  return out;
}

/** The id of a run's handoff notice message (one per run, whatever retries happen). */
export const handoffNoticeMessageId = (runId: string) => derivedId(IdPrefix.message, runId, 'handoff_notice');
