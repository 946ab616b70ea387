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

  /** The queue's teammates by queue id (ids only; for these queues). */
  async membersOf(db: Db, queueIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(queueIds.map((id) => [id, []]));
    if (queueIds.length === 0) return out;
    const rows = await db.selectFrom('queue_members').select(['queue_id', 'user_id']).where('queue_id', 'in', queueIds).orderBy('user_id').execute();
    for (const r of rows) out.get(r.queue_id)?.push(r.user_id);
    return out;
  }

  /** Replaces the queue's teammates (in `db`, a transaction when the caller holds one). */
  async setMembers(db: Db, queueId: string, userIds: string[]): Promise<void> {
    await db.deleteFrom('queue_members').where('queue_id', '=', queueId).execute();
    if (userIds.length > 0) await db.insertInto('queue_members').values(userIds.map((user_id) => ({ queue_id: queueId, user_id }))).execute();
  }

  /** The teammates (not disabled) of the queue named `name` in the scope: id and email. */
  async activeMembersByName(db: Db, scope: Scope, name: string) {
    return db
      .selectFrom('queues as q')
      .innerJoin('queue_members as m', 'm.queue_id', 'q.id')
      .innerJoin('console_users as u', (j) => j.onRef('u.id', '=', 'm.user_id').onRef('u.account_id', '=', 'q.account_id'))
      .select(['u.id', 'u.email'])
      .where('q.account_id', '=', scope.accountId)
      .where('q.livemode', '=', scope.livemode)
      .where('q.name', '=', name)
      .where('u.disabled_at', 'is', null)
      .orderBy('u.email')
      .execute();
  }
}
