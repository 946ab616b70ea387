import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { CitationPageTable } from '../db/tables/links';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;

export class CitationPageRepo {
  /** Stores the page unless its token is stored already (a retried run step). */
  async insertPage(db: Db, row: Insertable<CitationPageTable>) {
    await db.insertInto('citation_pages').values(row).onConflict((oc) => oc.column('token_hash').doNothing()).execute();
  }

  async getPage(db: Db, tokenHash: Buffer) {
    return db.selectFrom('citation_pages').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** The source's type and own url, when it is the scope's. */
  async getSourceOfScope(db: Db, scope: Scope, sourceId: string) {
    return db.selectFrom('knowledge_sources').select(['id', 'type', 'url']).where(inScope(scope)).where('id', '=', sourceId).executeTakeFirst();
  }
}
