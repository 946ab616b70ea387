import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

/** The kinds of object an account may hold only so many of. */
export type QuotaKind = 'webhook_endpoints' | 'api_sources';

/**
 * Counts for per-account limits. The counts read other areas' tables on purpose: a quota is the account's
 * business, and one place holds every count and the lock that makes check-then-insert safe.
 */
export class AccountQuotaRepo {
  /** Serialises quota checks of one account until the transaction ends (advisory lock, no row touched). */
  async lockAccountQuota(trx: Transaction<DB>, accountId: string, kind: QuotaKind) {
    await sql`select pg_advisory_xact_lock(hashtext(${`quota:${kind}:${accountId}`}))`.execute(trx);
  }

  async countObjects(db: Db, accountId: string, kind: QuotaKind): Promise<number> {
    const row =
      kind === 'webhook_endpoints'
        ? await db
            .selectFrom('webhook_endpoints')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('account_id', '=', accountId)
            .where('deleted_at', 'is', null)
            .executeTakeFirstOrThrow()
        : await db
            .selectFrom('knowledge_sources')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('account_id', '=', accountId)
            .where('type', '=', 'api')
            .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
