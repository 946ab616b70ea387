import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { DB } from '../db/schema';
import type { QueueTable } from '../db/tables/agents';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;
export type QueueRow = Selectable<QueueTable>;

/** Handoff queues of an account and mode, by id or by the name agents hand off to. */
export class QueueRepo {
  async insert(db: Db, row: Insertable<QueueTable>) {
    return db.insertInto('queues').values(row).onConflict((oc) => oc.columns(['account_id', 'livemode', 'name']).doNothing()).returningAll().executeTakeFirst();
  }

  async get(db: Db, scope: Scope, id: string) {
    return db.selectFrom('queues').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async getByName(db: Db, scope: Scope, name: string) {
    return db.selectFrom('queues').selectAll().where(inScope(scope)).where('name', '=', name).executeTakeFirst();
  }

  async list(db: Db, scope: Scope) {
    return db.selectFrom('queues').selectAll().where(inScope(scope)).orderBy('name').limit(100).execute();
  }

  async update(db: Db, scope: Scope, id: string, set: Updateable<QueueTable>) {
    return db.updateTable('queues').set({ ...set, updated_at: new Date() }).where(inScope(scope)).where('id', '=', id).returningAll().executeTakeFirst();
  }

  async delete(db: Db, scope: Scope, id: string) {
    return db.deleteFrom('queues').where(inScope(scope)).where('id', '=', id).returning('id').executeTakeFirst();
  }
}
