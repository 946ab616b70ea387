import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { notFound } from '../domain/errors';
import { scopeOf, type Scope, type VisitorPrincipal } from '../domain/principal';
import { ConversationEventRepo, type ConversationEventRow } from './conversation-event.repo';
import type { ConversationEventsNotifier, TypingSignal } from './conversation-events.notifier';
import { ConversationRepo, type ConversationRow } from './conversation.repo';
import { toConversationMessageObject } from './conversation.schemas';
import { canVisitorRead } from '../domain/visitor-access';

/** One event of a conversation's stream; `id` (its number in the conversation) is absent on typing. */
export interface ConversationStreamEvent {
  id?: number;
  event: string;
  data: Record<string, unknown>;
}

/** Stored events read per query while catching up. */
const PAGE = 500;
/** How long the typing indicator stays on unless the console renews it. */
export const TYPING_TTL_MS = 5000;

/**
 * A conversation as a stream (GET /v1/conversations/{id}/events): every stored event after the client's
 * Last-Event-ID (messages of every role, reply deltas and retractions, handoff and close), then live ones
 * as the process's one listener wakes the stream, until the conversation closes or the client leaves;
 * typing signals are passed on as they come and never stored.
 */
export class ConversationStreamService {
  private readonly conversations = new ConversationRepo();
  private readonly events = new ConversationEventRepo();

  constructor(private readonly deps: { db: Kysely<DB>; notifier: ConversationEventsNotifier }) {}

  /** The conversation a stream or a typing signal is about, in the caller's scope (another account's: 404). */
  /** The conversation a stream may read: the scope's, and with `visitor` only that visitor's own (canVisitorRead). */
  async readableConversation(input: Scope & { conversationId: string; visitor?: VisitorPrincipal }): Promise<ConversationRow> {
    const row = await this.conversations.getConversationById(this.deps.db, scopeOf(input), input.conversationId);
    if (!row || (input.visitor && !canVisitorRead(input.visitor, row))) throw notFound('conversation', input.conversationId);
    return row;
  }

  async *streamEvents(input: { conversation: ConversationRow; afterSeq: number; signal?: AbortSignal }): AsyncGenerator<ConversationStreamEvent> {
    const { conversation, signal } = input;
    // Subscribed before the first read: an event committed between the read and the wait still wakes it.
    const sub = this.deps.notifier.subscribe(conversation.id);
    try {
      let seq = input.afterSeq;
      let first = true;
      let read = true;
      while (!signal?.aborted) {
        const rows = read ? await this.events.listAfter(this.deps.db, conversation.id, seq, PAGE) : [];
        for (const row of rows) {
          seq = row.seq;
          yield present(row, conversation);
          if (row.type === 'conversation.closed') return;
        }
        // Resumed after the close event: nothing more will come.
        if (first && rows.length === 0 && conversation.status === 'closed') return;
        first = false;
        if (rows.length === PAGE) continue;
        const woke = await sub.wait(this.deps.notifier.idleReadMs, signal);
        for (const typing of woke.typing) yield { event: 'typing', data: { conversation_id: conversation.id, ...typing } };
        if (woke.ended) return;
        // Deltas their notifications carried, in order right after the last event sent: sent without a read.
        read = woke.stored;
        for (const delta of woke.deltas) {
          if (read || delta.seq <= seq) continue;
          if (delta.seq !== seq + 1) {
            read = true;
            continue;
          }
          seq = delta.seq;
          yield { id: delta.seq, event: 'reply.delta', data: { conversation_id: conversation.id, ...delta.data } };
        }
      }
    } finally {
      sub.close();
    }
  }

  /** A person in the console is typing a reply: the conversation's open streams show it for a few seconds. */
  async signalTyping(input: Scope & { conversationId: string }): Promise<void> {
    const conversation = await this.readableConversation(input);
    const signal: TypingSignal = { role: 'human', expires_in_ms: TYPING_TTL_MS };
    await this.deps.notifier.publishTyping(conversation.id, signal);
  }
}

function present(row: ConversationEventRow, conversation: ConversationRow): ConversationStreamEvent {
  if (row.type === 'conversation.message' && row.message) {
    return { id: row.seq, event: row.type, data: toConversationMessageObject(row.message, conversation.metadata) };
  }
  return { id: row.seq, event: row.type, data: { conversation_id: conversation.id, ...row.data } };
}
