import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { SmsSubmitAttemptTable, SubmitAttemptState } from '../db/tables/sms';

type Db = Kysely<DB> | Transaction<DB>;
export type SubmitAttemptRow = Selectable<SmsSubmitAttemptTable>;

/** The journal of a message's submits to carriers (sms_submit_attempts). */
export class SubmitAttemptRepo {
  async listAttempts(db: Db, messageId: string): Promise<SubmitAttemptRow[]> {
    return db.selectFrom('sms_submit_attempts').selectAll().where('message_id', '=', messageId).orderBy('attempt').execute();
  }

  /** Records a submit about to be handed to `carrier` (state `submitting`); returns its number. */
  async beginAttempt(db: Db, row: { message_id: string; carrier: string; recipient: string; parts: number }): Promise<number> {
    const inserted = await db
      .insertInto('sms_submit_attempts')
      .values({
        ...row,
        attempt: sql<number>`(select coalesce(max(attempt), 0) + 1 from sms_submit_attempts where message_id = ${row.message_id})`,
        state: 'submitting',
      })
      .returning('attempt')
      .executeTakeFirstOrThrow();
    return inserted.attempt;
  }

  async finishAttempt(
    db: Db,
    messageId: string,
    attempt: number,
    outcome: { state: SubmitAttemptState; accepted_ids?: string[]; concat_ref?: number | null; error_code?: string | null },
  ) {
    const { accepted_ids, ...rest } = outcome;
    await db
      .updateTable('sms_submit_attempts')
      .set({ ...rest, ...(accepted_ids ? { accepted_ids: JSON.stringify(accepted_ids) } : {}), finished_at: new Date() })
      .where('message_id', '=', messageId)
      .where('attempt', '=', attempt)
      .execute();
  }

  /** Marks the message's open (`submitting`) or uncertain attempts with `state`. */
  async settleOpenAttempts(db: Db, messageId: string, state: 'uncertain' | 'abandoned' | 'accepted', acceptedIds?: string[]) {
    await db
      .updateTable('sms_submit_attempts')
      .set({ state, finished_at: new Date(), ...(acceptedIds ? { accepted_ids: JSON.stringify(acceptedIds) } : {}) })
      .where('message_id', '=', messageId)
      .where('state', 'in', state === 'uncertain' ? ['submitting'] : ['submitting', 'uncertain'])
      .execute();
  }

  /**
   * A stored receipt that may answer one of a message's open submits: at that attempt's carrier, about the
   * message's handset, received after the attempt began, and matching no recorded part of any message
   * (its submit's answer was lost, e.g. with a killed worker, after the receipt was acknowledged).
   */
  async findOrphanReceipt(db: Db, handset: string, open: { carrier: string; started_at: Date }[]) {
    if (open.length === 0) return undefined;
    const earliest = new Date(Math.min(...open.map((a) => a.started_at.getTime())));
    return db
      .selectFrom('sms_receipts as r')
      .select(['r.carrier', 'r.carrier_message_id'])
      .where('r.handset', '=', handset)
      .where('r.carrier', 'in', [...new Set(open.map((a) => a.carrier))])
      .where('r.received_at', '>=', earliest)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('message_parts as p').select('p.message_id').whereRef('p.carrier', '=', 'r.carrier').whereRef('p.carrier_message_id', '=', 'r.carrier_message_id'))),
      )
      .orderBy('r.received_at')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * The oldest submit at `carrier` to `handset` that may have gone out unanswered, of a message still
   * `sending`: a receipt whose carrier id we never got belongs to it.
   */
  async findUncertainAttempt(db: Db, carrier: string, handset: string) {
    return db
      .selectFrom('sms_submit_attempts as a')
      .innerJoin('messages as m', 'm.id', 'a.message_id')
      .select(['a.message_id', 'a.attempt'])
      .where('a.carrier', '=', carrier)
      .where('a.recipient', '=', handset)
      .where('a.state', 'in', ['submitting', 'uncertain'])
      .where('m.status', '=', 'sending')
      .orderBy('a.started_at')
      .limit(1)
      .executeTakeFirst();
  }
}
