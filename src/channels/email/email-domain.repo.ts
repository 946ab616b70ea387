import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../../db/schema';
import type { EmailDomainTable } from '../../db/tables/email';
import { inScope, type Scope } from '../../db/scope';
import { paginate, type PageParams } from '../../db/pagination';

type Db = Kysely<DB> | Transaction<DB>;
export type EmailDomainRow = Selectable<EmailDomainTable>;

/** The domains accounts prove they own, per account and mode. */
export class EmailDomainRepo {
  async insertDomain(db: Db, row: Insertable<EmailDomainTable>) {
    return db.insertInto('email_domains').values(row).onConflict((oc) => oc.doNothing()).returningAll().executeTakeFirst();
  }

  /** How many domains the scope has, and whether `domain` is one of them. */
  async countDomains(db: Db, scope: Scope, domain: string): Promise<{ count: number; exists: boolean }> {
    const row = await db
      .selectFrom('email_domains')
      .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.max(sql<number>`(domain = ${domain})::int`).as('exists')])
      .where(inScope(scope))
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), exists: Number(row.exists ?? 0) === 1 };
  }

  async getDomainById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('email_domains').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async listDomainPage(db: Kysely<DB>, scope: Scope, page: PageParams) {
    return paginate(db, 'email_domains', db.selectFrom('email_domains').selectAll().where(inScope(scope)), page);
  }

  /** The scope's verified domains, shortest first. */
  async listVerifiedDomains(db: Db, scope: Scope) {
    return db.selectFrom('email_domains').selectAll().where(inScope(scope)).where('verified_at', 'is not', null).orderBy(sql`length(domain)`).orderBy('domain').execute();
  }

  /**
   * The scope's verified domain that covers `domain`: the domain itself or a parent of it (whoever runs a
   * domain's DNS runs its subdomains'), the most specific first.
   */
  async findVerifiedCovering(db: Db, scope: Scope, domain: string) {
    const candidates = parentDomains(domain);
    if (candidates.length === 0) return undefined;
    return db
      .selectFrom('email_domains')
      .selectAll()
      .where(inScope(scope))
      .where('verified_at', 'is not', null)
      .where('domain', 'in', candidates)
      .orderBy(sql`length(domain)`, 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async recordCheck(db: Db, scope: Scope, id: string, found: { ownership: boolean; dkim: boolean }) {
    const now = new Date();
    return db
      .updateTable('email_domains')
      .set({
        last_checked_at: now,
        ...(found.ownership ? { verified_at: sql`coalesce(verified_at, ${now})` } : {}),
        ...(found.dkim ? { dkim_verified_at: sql`coalesce(dkim_verified_at, ${now})` } : {}),
      })
      .where(inScope(scope))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteDomain(db: Db, scope: Scope, id: string) {
    return db.deleteFrom('email_domains').where(inScope(scope)).where('id', '=', id).returning('id').executeTakeFirst();
  }
}

/** `a.b.example` → [`a.b.example`, `b.example`, `example`]: the domain and each parent (lower-case). */
export function parentDomains(domain: string): string[] {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.').filter(Boolean);
  return labels.map((_, i) => labels.slice(i).join('.')).filter((d) => d.includes('.'));
}
