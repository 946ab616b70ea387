import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

export class FeedbackRepo {
  async conversation(db: Db, id: string) {
    return db.selectFrom('conversations').select(['id', 'account_id', 'livemode', 'agent_id', 'test', 'visitor_id', 'customer']).where('id', '=', id).executeTakeFirst();
  }

  async messageOf(db: Db, conversationId: string, messageId: string) {
    return db.selectFrom('conversation_messages').select(['id', 'role']).where('conversation_id', '=', conversationId).where('id', '=', messageId).executeTakeFirst();
  }

  /** The vote on the conversation (or one of its answers): a first one, or the one there changed (its id kept, its time now). */
  async upsert(db: Db, row: { id: string; account_id: string; livemode: boolean; conversation_id: string; message_id: string | null; rating: 'up' | 'down' }) {
    return db.insertInto('conversation_feedback').values(row)
      .onConflict((oc) => oc.columns(['conversation_id', 'message_id']).doUpdateSet({ rating: row.rating, created_at: sql`now()` }))
      .returningAll().executeTakeFirstOrThrow();
  }
}
