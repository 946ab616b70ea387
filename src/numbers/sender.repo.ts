import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { paginate, type PageParams } from '../db/pagination';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;

export class SenderRepo {
  async insertSender(db: Db, row: { id: string; account_id: string; livemode: boolean; sender: string; kind: 'alphanumeric' | 'short_code' }) {
    return db.insertInto('senders').values(row).onConflict((oc) => oc.expression(sql`lower(sender)`).doNothing()).returningAll().executeTakeFirst();
  }

  /** The registration of `sender` (any case), whoever holds it. */
  async getSenderBySender(db: Db, sender: string) {
    return db.selectFrom('senders').selectAll().where(sql<string>`lower(sender)`, '=', sender.toLowerCase()).executeTakeFirst();
  }

  async getSenderById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('senders').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async listSenders(db: Kysely<DB>, scope: Scope, page: PageParams) {
    return paginate(db, 'senders', db.selectFrom('senders').selectAll().where(inScope(scope)), page);
  }
}
