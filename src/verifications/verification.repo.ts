import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { VerificationStatus, VerificationTable } from '../db/tables/sms';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;

export class VerificationRepo {
  async insertVerification(db: Db, row: Insertable<VerificationTable>) {
    return db.insertInto('verifications').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getVerificationById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('verifications').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async getVerification(db: Db, id: string) {
    return db.selectFrom('verifications').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async setMessageId(db: Db, id: string, messageId: string) {
    await db.updateTable('verifications').set({ message_id: messageId }).where('id', '=', id).execute();
  }

  /** Counts one check attempt on a pending verification; undefined when it is not pending any more. */
  async countAttempt(db: Db, id: string) {
    return db
      .updateTable('verifications')
      .set({ attempts: sql`attempts + 1`, updated_at: new Date() })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('attempts', '<', sql<number>`max_attempts`)
      .returningAll()
      .executeTakeFirst();
  }

  /** Moves a pending verification to a final status; undefined when it was no longer pending. */
  async finishVerification(db: Db, id: string, status: Exclude<VerificationStatus, 'pending'>) {
    return db
      .updateTable('verifications')
      .set({ status, updated_at: new Date() })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
  }
}
