import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { ConversationMessageRow } from './conversation.repo';

type Db = Kysely<DB> | Transaction<DB>;

/** A stored event of a conversation's stream, with the message it names (conversation.message). */
export interface ConversationEventRow {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  message: ConversationMessageRow | null;
}

/** Postgres unique_violation: two writers of one stream took the same number (the loser tries again). */
const UNIQUE_VIOLATION = '23505';

/**
 * The conversation stream's stored events (table conversation_events). Messages and status changes are
 * written by triggers in their own transactions (see the migration create-conversation-events); runs
 * append reply.delta and reply.retracted here. Numbers come from `conversation_event_seq`, which takes the
 * conversation's row lock first, so a stream's numbers follow commit order.
 */
export class ConversationEventRepo {
  /**
   * Appends one event (its number is the conversation's next); the insert NOTIFYs listeners on commit.
   * `asyncCommit` (a streamed reply.delta written on its own, outside a transaction): the commit does not
   * wait for the WAL flush (Postgres' synchronous_commit off, for this statement only), which is what a
   * token used to wait for; the run's finishing transaction, synchronous, makes every earlier delta durable
   * (docs/decisions/reply-delta-async-commit.md).
   */
  async append(db: Db, conversationId: string, type: string, data: Record<string, unknown>, opts: { asyncCommit?: boolean } = {}): Promise<number> {
    const asyncCommit = opts.asyncCommit === true && !db.isTransaction;
    for (let attempt = 1; ; attempt++) {
      try {
        const row = asyncCommit
          ? await sql<{ seq: number }>`insert into conversation_events (conversation_id, seq, type, data)
              select ${conversationId}, conversation_event_seq(${conversationId}), ${type}, ${JSON.stringify(data)}::jsonb
              from (select set_config('synchronous_commit', 'off', true)) as async_commit returning seq`.execute(db)
          : await sql<{ seq: number }>`insert into conversation_events (conversation_id, seq, type, data)
              values (${conversationId}, conversation_event_seq(${conversationId}), ${type}, ${JSON.stringify(data)}::jsonb) returning seq`.execute(db);
        return row.rows[0]!.seq;
      } catch (err) {
        if ((err as { code?: string }).code !== UNIQUE_VIOLATION || attempt >= 3) throw err;
      }
    }
  }

  /** The text streamed as a run's reply since its last retraction: its reply.delta events joined. */
  async streamedReply(db: Db, conversationId: string, runId: string): Promise<string> {
    const row = await sql<{ text: string }>`select coalesce(string_agg(e.data->>'text', '' order by e.seq), '') as text
      from conversation_events e
      where e.conversation_id = ${conversationId} and e.type = 'reply.delta' and e.data->>'run_id' = ${runId}
        and e.seq > coalesce((select max(r.seq) from conversation_events r
          where r.conversation_id = ${conversationId} and r.type = 'reply.retracted' and r.data->>'run_id' = ${runId}), 0)`.execute(db);
    return row.rows[0]?.text ?? '';
  }

  /** The events after `afterSeq`, oldest first (at most `limit`), each with the message it names. */
  async listAfter(db: Db, conversationId: string, afterSeq: number, limit: number): Promise<ConversationEventRow[]> {
    const rows = await db
      .selectFrom('conversation_events as e')
      .leftJoin('conversation_messages as m', 'm.id', 'e.message_id')
      .select(['e.seq', 'e.type', 'e.data', sql<ConversationMessageRow | null>`case when m.id is null then null else to_jsonb(m) end`.as('message')])
      .where('e.conversation_id', '=', conversationId)
      .where('e.seq', '>', afterSeq)
      .orderBy('e.seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      seq: r.seq,
      type: r.type,
      data: r.data,
      message: r.message ? { ...r.message, created_at: new Date(r.message.created_at as unknown as string) } : null,
    }));
  }
}
