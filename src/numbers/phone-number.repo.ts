import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { paginate, type PageParams } from '../db/pagination';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;

export class PhoneNumberRepo {
  async insertPhoneNumber(db: Db, row: { id: string; account_id: string; livemode: boolean; number: string; country: string | null; help_text: string | null; agent_id: string | null }) {
    return db.insertInto('phone_numbers').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getPhoneNumberById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('phone_numbers').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async getPhoneNumberByNumber(db: Db, number: string) {
    return db.selectFrom('phone_numbers').selectAll().where('number', '=', number).executeTakeFirst();
  }

  async setAgent(db: Db, scope: Scope, id: string, agentId: string | null) {
    return db.updateTable('phone_numbers').set({ agent_id: agentId }).where(inScope(scope)).where('id', '=', id).returningAll().executeTakeFirst();
  }

  async listNumbersOfAgent(db: Db, scope: Scope, agentId: string) {
    return db.selectFrom('phone_numbers').selectAll().where(inScope(scope)).where('agent_id', '=', agentId).orderBy('created_at').orderBy('id').execute();
  }

  async setVoiceCallFlow(db: Db, scope: Scope, id: string, flow: Record<string, unknown> | null) {
    return db
      .updateTable('phone_numbers')
      .set({ voice_call_flow: flow === null ? null : JSON.stringify(flow) })
      .where(inScope(scope))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async listPhoneNumbers(db: Kysely<DB>, scope: Scope, page: PageParams) {
    return paginate(db, 'phone_numbers', db.selectFrom('phone_numbers').selectAll().where(inScope(scope)), page);
  }
}
