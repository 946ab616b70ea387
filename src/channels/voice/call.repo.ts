import { sql, type Insertable, type Kysely, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { DB } from '../../db/schema';
import { paginate, type PageParams } from '../../db/pagination';
import { inScope, type Scope } from '../../db/scope';
import type { CallStatus, CallTable } from '../../db/tables/calls';

type Db = Kysely<DB> | Transaction<DB>;
export type CallRow = Selectable<CallTable>;

/** Where each status sits in a call's life; a callback never moves a call backwards (they can arrive out of order). */
export const CALL_STATUS_RANK: Record<CallStatus, number> = {
  queued: 0,
  initiated: 1,
  ringing: 2,
  'in-progress': 3,
  completed: 4,
  busy: 4,
  failed: 4,
  'no-answer': 4,
  canceled: 4,
};

export class CallRepo {
  /** Inserts the call unless the provider retried its webhook; the row either way, and whether it is new. */
  async insertCall(db: Db, row: Insertable<CallTable>): Promise<{ call: CallRow; inserted: boolean }> {
    const inserted = await db.insertInto('calls').values(row).onConflict((oc) => oc.column('id').doNothing()).returningAll().executeTakeFirst();
    if (inserted) return { call: inserted, inserted: true };
    return { call: (await this.getCall(db, row.id))!, inserted: false };
  }

  async getCall(db: Db, id: string) {
    return db.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The call when it belongs to the scope (the account, in that mode). */
  async getCallInScope(db: Db, scope: Scope, id: string) {
    return db.selectFrom('calls').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  /** The scope's calls, newest first, optionally of one number, conversation or status. */
  async listCalls(db: Kysely<DB>, scope: Scope, page: PageParams, filter: { phoneNumberId?: string; conversationId?: string; status?: CallStatus }) {
    let q = db.selectFrom('calls').selectAll().where(inScope(scope));
    if (filter.phoneNumberId) q = q.where('phone_number_id', '=', filter.phoneNumberId);
    if (filter.conversationId) q = q.where('conversation_id', '=', filter.conversationId);
    if (filter.status) q = q.where('status', '=', filter.status);
    return paginate(db, 'calls', q, page);
  }

  /** Locks the call for a transition (status callbacks of one call may arrive at once). */
  async getCallForUpdate(db: Transaction<DB>, id: string) {
    return db.selectFrom('calls').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  async updateCall(db: Db, id: string, set: Updateable<CallTable>) {
    return db
      .updateTable('calls')
      .set({ ...set, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Links the call to its conversation once (the first speech turn); the conversation it holds either way. */
  async linkConversation(db: Db, id: string, conversationId: string): Promise<string> {
    const row = await db
      .updateTable('calls')
      .set({ conversation_id: sql<string>`coalesce(conversation_id, ${conversationId})`, updated_at: new Date() })
      .where('id', '=', id)
      .returning('conversation_id')
      .executeTakeFirstOrThrow();
    return row.conversation_id!;
  }
}
