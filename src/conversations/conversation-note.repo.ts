import type { Insertable, Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { ConversationNoteTable } from '../db/tables/inbox';
import { inScope, type Scope } from '../db/scope';

/** Internal notes of conversations. */
export class ConversationNoteRepo {
  async insert(db: Kysely<DB>, row: Insertable<ConversationNoteTable>) {
    return db.insertInto('conversation_notes').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** How many notes the conversation has (counting stops at `upTo`). */
  async count(db: Kysely<DB>, conversationId: string, upTo: number): Promise<number> {
    const rows = await db.selectFrom('conversation_notes').select('id').where('conversation_id', '=', conversationId).limit(upTo).execute();
    return rows.length;
  }

  /** The conversation's notes, oldest first (at most `limit`). */
  async list(db: Kysely<DB>, scope: Scope, conversationId: string, limit: number) {
    return db.selectFrom('conversation_notes').selectAll().where(inScope(scope)).where('conversation_id', '=', conversationId).orderBy('created_at').orderBy('id').limit(limit).execute();
  }
}
