import type { Insertable, Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { SavedReplyTable } from '../db/tables/inbox';
import { inScope, type Scope } from '../db/scope';

/** An account's saved replies (per mode), by name. */
export class SavedReplyRepo {
  async insert(db: Kysely<DB>, row: Insertable<SavedReplyTable>) {
    return db.insertInto('saved_replies').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async list(db: Kysely<DB>, scope: Scope, limit: number) {
    return db.selectFrom('saved_replies').selectAll().where(inScope(scope)).orderBy('name').orderBy('id').limit(limit).execute();
  }

  /** How many saved replies the account and mode keep (counting stops at `upTo`). */
  async count(db: Kysely<DB>, scope: Scope, upTo: number): Promise<number> {
    return (await db.selectFrom('saved_replies').select('id').where(inScope(scope)).limit(upTo).execute()).length;
  }

  async get(db: Kysely<DB>, scope: Scope, id: string) {
    return db.selectFrom('saved_replies').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async update(db: Kysely<DB>, scope: Scope, id: string, set: { name?: string; content?: string }) {
    return db.updateTable('saved_replies').set({ ...set, updated_at: new Date() }).where(inScope(scope)).where('id', '=', id).returningAll().executeTakeFirst();
  }

  async delete(db: Kysely<DB>, scope: Scope, id: string) {
    const r = await db.deleteFrom('saved_replies').where(inScope(scope)).where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
