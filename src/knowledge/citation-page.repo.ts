import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { CitationPageTable } from '../db/tables/links';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;

export class CitationPageRepo {
  /** Stores the pages in one statement, each unless its token is stored already (a retried run step). */
  async insertPages(db: Db, rows: Insertable<CitationPageTable>[]) {
    if (rows.length === 0) return;
    await db.insertInto('citation_pages').values(rows).onConflict((oc) => oc.column('token_hash').doNothing()).execute();
  }

  async getPage(db: Db, tokenHash: Buffer) {
    return db.selectFrom('citation_pages').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** The sources' types and own urls, those of them that are the scope's (in one read). */
  async listSourcesOfScope(db: Db, scope: Scope, sourceIds: readonly string[]) {
    if (sourceIds.length === 0) return [];
    return db.selectFrom('knowledge_sources').select(['id', 'type', 'url']).where(inScope(scope)).where('id', 'in', [...sourceIds]).execute();
  }
}
