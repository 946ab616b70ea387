import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

/** The kinds of object an account may hold only so many of. */
export type QuotaKind = 'webhook_endpoints' | 'api_sources';

/** What an account keeps only so many of: its object quotas and the lists kept to a fixed length (per mode, per conversation…). */
export type CappedList = QuotaKind | 'saved_replies' | 'conversation_notes' | 'open_invites';

/**
 * Volumes an account may make only so much of per rolling day: test-mode batch messages, and those of
 * them whose batch has a status_callback (each makes about three signed POSTs to that URL).
 */
export type VolumeKind = 'test_batch_messages' | 'test_batch_callback_messages';

/**
 * Counts for per-account limits. The counts read other areas' tables on purpose: a quota is the account's
 * business, and one place holds every count and the lock that makes check-then-insert safe.
 */
export class AccountQuotaRepo {
  /** Serialises check-then-insert into one capped list until the transaction ends (`key` names it: an account, an account and mode, a conversation…; advisory lock, no row touched). */
  async lockCappedList(trx: Transaction<DB>, list: CappedList, key: string) {
    await sql`select pg_advisory_xact_lock(hashtext(${`cap:${list}:${key}`}))`.execute(trx);
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

  /** Serialises volume checks of one account (same lock scheme as lockAccountQuota). */
  async lockAccountVolume(trx: Transaction<DB>, accountId: string, kind: VolumeKind) {
    await sql`select pg_advisory_xact_lock(hashtext(${`volume:${kind}:${accountId}`}))`.execute(trx);
  }

  /** How many rows of `kind` the account made since `since`, and when the oldest of them was made. */
  async countVolumeSince(db: Db, accountId: string, kind: VolumeKind, since: Date): Promise<{ count: number; oldest: Date | null }> {
    let q = db
      .selectFrom('messages')
      .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('account_id', '=', accountId)
      .where('livemode', '=', false)
      .where('message_batch_id', 'is not', null)
      .where('created_at', '>', since);
    if (kind === 'test_batch_callback_messages') q = q.where('status_callback', 'is not', null);
    const row = await q.executeTakeFirstOrThrow();
    return { count: Number(row.n), oldest: row.oldest ? new Date(row.oldest as unknown as string) : null };
  }
}
