import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

export class ShortLinkRepo {
  /** Stores a link; a code already stored (a retried step) is left as it is. Returns the stored row. */
  async insertShortLink(db: Db, row: { code: string; account_id: string; livemode: boolean; run_id: string | null; conversation_id: string | null; url: string }) {
    await db.insertInto('short_links').values(row).onConflict((oc) => oc.column('code').doNothing()).execute();
    return db.selectFrom('short_links').selectAll().where('code', '=', row.code).executeTakeFirstOrThrow();
  }

  /** Counts one click and returns the link, or undefined for an unknown code. */
  async recordClick(db: Db, code: string) {
    return db
      .updateTable('short_links')
      .set({ clicks: sql`clicks + 1`, last_clicked_at: new Date() })
      .where('code', '=', code)
      .returning(['url', 'clicks', 'account_id', 'livemode'])
      .executeTakeFirst();
  }

  async getShortLink(db: Db, code: string) {
    return db.selectFrom('short_links').selectAll().where('code', '=', code).executeTakeFirst();
  }

  async listShortLinksOfRun(db: Db, runId: string) {
    return db.selectFrom('short_links').selectAll().where('run_id', '=', runId).orderBy('created_at').execute();
  }
}
