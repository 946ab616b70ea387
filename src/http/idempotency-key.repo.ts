import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

export interface IdempotencyClaim {
  accountId: string;
  key: string;
  method: string;
  path: string;
  requestHash: string;
  /** A done key older than this is free again (the replay window). */
  replayWindowMs: number;
  /** An in-progress key older than this belongs to a request whose process died. */
  abandonedAfterMs: number;
}

/** The idempotency store: one row per (account, Idempotency-Key), claimed in progress, then done. */
export class IdempotencyKeyRepo {
  /**
   * Claims the key for this request (new, expired or abandoned): resolves with the claim's stamp (its
   * exact created_at, which a release names), or undefined when another request holds the key.
   */
  async claimKey(db: Db, c: IdempotencyClaim): Promise<string | undefined> {
    const claimed = await db
      .insertInto('idempotency_keys')
      .values({
        account_id: c.accountId,
        key: c.key,
        request_method: c.method,
        request_path: c.path,
        request_hash: c.requestHash,
        state: 'in_progress',
        response_status: null,
        response_body: null,
      })
      .onConflict((oc) =>
        oc.columns(['account_id', 'key']).doUpdateSet({
          request_method: c.method,
          request_path: c.path,
          request_hash: c.requestHash,
          state: 'in_progress',
          response_status: null,
          response_body: null,
          created_at: sql`now()`,
        }).where(({ or, eb }) =>
          or([
            eb('idempotency_keys.created_at', '<', new Date(Date.now() - c.replayWindowMs)),
            eb.and([
              eb('idempotency_keys.state', '=', 'in_progress'),
              eb('idempotency_keys.created_at', '<', new Date(Date.now() - c.abandonedAfterMs)),
            ]),
          ]),
        ),
      )
      .returning(sql<string>`created_at::text`.as('claimed_at'))
      .executeTakeFirst();
    return claimed?.claimed_at;
  }

  async getKey(db: Db, accountId: string, key: string) {
    return db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', accountId).where('key', '=', key).executeTakeFirstOrThrow();
  }

  async storeResponse(db: Db, accountId: string, key: string, response: { status: number; body: unknown }) {
    await db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: response.status, response_body: JSON.stringify(response.body) })
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .execute();
  }

  /** Deletes keys past the replay window (the periodic sweep); returns how many. */
  async deleteExpired(db: Db, replayWindowMs: number): Promise<number> {
    const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', new Date(Date.now() - replayWindowMs)).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Frees the key of the claim stamped `claimedAt` (and only that claim: a late retry never frees a later one). */
  async releaseKey(db: Db, accountId: string, key: string, claimedAt: string) {
    await db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('state', '=', 'in_progress')
      .where(sql<boolean>`created_at = ${claimedAt}::timestamptz`)
      .execute();
  }
}
