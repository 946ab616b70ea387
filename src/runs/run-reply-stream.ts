import type { Kysely, Transaction } from 'kysely';
import type { PlannerDecision } from '../agents/planner/port';
import type { DB } from '../db/schema';
import { RedactionStream } from '../privacy/redaction-stream';
import type { RunConversationsPort } from './run-conversations.port';
import type { RunRow } from './run.repo';

/** reply.delta events: the reply streamed in pieces of about this many characters, on word boundaries. */
const DELTA_CHARS = 48;

/**
 * The planner's reply text on its way to the conversation's stream (reply.delta), redacted as it comes
 * (RedactionStream holds back what could still become a card number or an id). Deltas are written in
 * order, one statement each, by this activity: they never enter the workflow's history. A retried step
 * first withdraws what an earlier attempt streamed (reply.retracted, `retried`); a step that ends in
 * tool calls or a handoff withdraws what it streamed (`tool_calls`, `handoff`).
 */
export async function openReplyStream(port: RunConversationsPort, db: Kysely<DB>, run: RunRow) {
  const conversationId = run.conversation_id;
  const retract = (reason: string) => port.appendReplyEvent(db, { conversationId, type: 'reply.retracted', data: { run_id: run.id, reason } });
  if (await port.streamedReply(db, { conversationId, runId: run.id })) await retract('retried');
  const redaction = new RedactionStream();
  let streamed = '';
  let written: Promise<void> = Promise.resolve();
  const send = (text: string) => {
    if (!text) return;
    streamed += text;
    written = written.then(() => port.appendReplyEvent(db, { conversationId, type: 'reply.delta', data: { run_id: run.id, text }, live: true }));
  };
  return {
    push: (text: string) => send(redaction.push(text)),
    /** The step's end: the held tail of a reply goes out; streamed text of another outcome is withdrawn. */
    finish: async (decision: PlannerDecision) => {
      if (decision.type === 'reply') send(redaction.end());
      await written;
      if (decision.type !== 'reply' && streamed) await retract(decision.type);
    },
  };
}

/**
 * The conversation stream's last word on the run's reply, in the finishing transaction: the stored reply
 * equals the deltas joined. Nothing streamed (a planner that answers at once, like the local one): the
 * reply goes out sentence by sentence. Streamed text the stored reply continues: the rest goes out.
 * Anything else withdraws what was streamed with the reason (`handoff`: the finishing step handed off,
 * e.g. low_confidence or restricted_topic; `failed`, `expired`; `edited`: the stored reply differs).
 */
export async function settleStreamedReply(port: RunConversationsPort, tx: Transaction<DB>, run: RunRow, reply: string | null, withoutReply: { reason: string; handoff_reason?: string }) {
  const conversationId = run.conversation_id;
  const streamed = await port.streamedReply(tx, { conversationId, runId: run.id });
  const delta = (text: string) => port.appendReplyEvent(tx, { conversationId, type: 'reply.delta', data: { run_id: run.id, text } });
  const retract = (why: { reason: string; handoff_reason?: string }) => port.appendReplyEvent(tx, { conversationId, type: 'reply.retracted', data: { run_id: run.id, ...why } });
  if (reply === null) {
    if (streamed) await retract(withoutReply);
    return;
  }
  if (!streamed) {
    for (const sentence of sentences(reply)) await delta(sentence);
  } else if (reply.startsWith(streamed)) {
    if (reply.length > streamed.length) await delta(reply.slice(streamed.length));
  } else await retract({ reason: 'edited' });
}

/** Splits a reply into word-boundary pieces for reply.delta events (their concatenation is the reply). */
export function deltas(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + DELTA_CHARS);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start) end = space + 1;
    }
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** A reply in sentences, each with the space after it (joined, they are the reply): the local planner's deltas. */
export function sentences(text: string): string[] {
  const parts = text.match(/[^.!?。！？\n]*(?:[.!?。！？]+|\n+|$)\s*/gu)?.filter(Boolean) ?? [];
  return parts.join('') === text ? parts : [text];
}
