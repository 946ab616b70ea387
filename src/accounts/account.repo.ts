import { sql, type Kysely, type Transaction } from 'kysely';

/** Postgres channel announcing revoked API keys (payload: the key id) to every API process. */
export const API_KEY_REVOKED_CHANNEL = 'converse_api_key_revoked';
import type { DB } from '../db/schema';
import type { Role } from '../domain/roles';

type Db = Kysely<DB> | Transaction<DB>;

export class AccountRepo {
  async insertAccount(db: Db, row: { id: string; name: string; signing_secret: string; test_signing_secret: string }) {
    return db.insertInto('accounts').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getAccountById(db: Db, id: string) {
    return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The signing secret of one mode (live: the `signing_secret` columns; test: `test_signing_secret`), and its rotation. */
  async getSigningSecrets(db: Db, id: string, livemode: boolean) {
    const q = db.selectFrom('accounts').where('id', '=', id);
    return livemode
      ? q.select(['signing_secret', 'previous_signing_secret', 'previous_signing_secret_expires_at']).executeTakeFirst()
      : q
          .select([
            'test_signing_secret as signing_secret',
            'test_previous_signing_secret as previous_signing_secret',
            'test_previous_signing_secret_expires_at as previous_signing_secret_expires_at',
          ])
          .executeTakeFirst();
  }

  /** New current secret of one mode; the old one keeps signing until `previousExpiresAt` (none when null). */
  async updateAccount(db: Db, id: string, set: { sign_sms_replies?: boolean }) {
    return db.updateTable('accounts').set(set).where('id', '=', id).returningAll().executeTakeFirst();
  }

  async rotateSigningSecret(db: Db, input: { id: string; livemode: boolean; secret: string; previousExpiresAt: Date | null }) {
    const { id, secret, previousExpiresAt } = input;
    return db
      .updateTable('accounts')
      .set((eb) =>
        input.livemode
          ? {
              signing_secret: secret,
              previous_signing_secret: previousExpiresAt ? eb.ref('signing_secret') : null,
              previous_signing_secret_expires_at: previousExpiresAt,
            }
          : {
              test_signing_secret: secret,
              test_previous_signing_secret: previousExpiresAt ? eb.ref('test_signing_secret') : null,
              test_previous_signing_secret_expires_at: previousExpiresAt,
            },
      )
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async getAccountByName(db: Db, name: string) {
    return db.selectFrom('accounts').selectAll().where('name', '=', name).orderBy('created_at').executeTakeFirst();
  }

  async insertApiKey(
    db: Db,
    row: { id: string; account_id: string; mode: 'test' | 'live'; secret_hash: string; last4: string; name: string; role: Role; created_by_user_id: string | null },
  ) {
    return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getActiveApiKeyByHash(db: Db, secretHash: string) {
    return db
      .selectFrom('api_keys')
      .selectAll()
      .where('secret_hash', '=', secretHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  }

  /** Sets a key's last_used_at (never moved back). */
  async touchApiKey(db: Db, id: string, at: Date): Promise<void> {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }

  /** Whether any account has an unrevoked live key. */
  async hasActiveLiveKey(db: Db): Promise<boolean> {
    const row = await db.selectFrom('api_keys').select('id').where('mode', '=', 'live').where('revoked_at', 'is', null).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** The account's keys, of one mode when `mode` is given. */
  async listApiKeys(db: Db, accountId: string, mode?: 'test' | 'live') {
    let q = db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId);
    if (mode) q = q.where('mode', '=', mode);
    return q.orderBy('created_at').execute();
  }

  async revokeApiKey(db: Db, input: { accountId: string; id: string; mode?: 'test' | 'live' }) {
    let q = db.updateTable('api_keys').set({ revoked_at: new Date() }).where('account_id', '=', input.accountId).where('id', '=', input.id);
    if (input.mode) q = q.where('mode', '=', input.mode);
    return q.returningAll().executeTakeFirst();
  }

  /** Tells every process listening on API_KEY_REVOKED_CHANNEL (delivered when the transaction commits). */
  async notifyApiKeyRevoked(db: Db, keyId: string) {
    await sql`select pg_notify(${API_KEY_REVOKED_CHANNEL}, ${keyId})`.execute(db);
  }
}
