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

  /** The numbers with this agent attached; `agentId` null: the numbers with no agent (the team answers them). */
  async listNumbersOfAgent(db: Db, scope: Scope, agentId: string | null) {
    return db
      .selectFrom('phone_numbers')
      .selectAll()
      .where(inScope(scope))
      .where((eb) => (agentId === null ? eb('agent_id', 'is', null) : eb('agent_id', '=', agentId)))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Sets what is given of the number's agent and call flow in one statement; the row as updated, undefined when not the scope's. */
  async updatePhoneNumber(db: Db, scope: Scope, id: string, changes: { agentId?: string | null; flow?: Record<string, unknown> | null }) {
    return db
      .updateTable('phone_numbers')
      .set({
        ...(changes.agentId !== undefined && { agent_id: changes.agentId }),
        ...(changes.flow !== undefined && { voice_call_flow: changes.flow === null ? null : JSON.stringify(changes.flow) }),
      })
      .where(inScope(scope))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async listPhoneNumbers(db: Kysely<DB>, scope: Scope, page: PageParams) {
    return paginate(db, 'phone_numbers', db.selectFrom('phone_numbers').selectAll().where(inScope(scope)), page);
  }
}
