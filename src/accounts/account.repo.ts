import { sql, type Kysely, type Transaction } from 'kysely';

/** Postgres channel announcing revoked API keys (payload: the key id) to every API process. */
export const API_KEY_REVOKED_CHANNEL = 'converse_api_key_revoked';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

export class AccountRepo {
  async insertAccount(db: Db, row: { id: string; name: string; signing_secret: string }) {
    return db.insertInto('accounts').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getAccountById(db: Db, id: string) {
    return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async getSigningSecrets(db: Db, id: string) {
    return db
      .selectFrom('accounts')
      .select(['signing_secret', 'previous_signing_secret', 'previous_signing_secret_expires_at'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** New current secret; the old one keeps signing until `previousExpiresAt` (none when null). */
  async rotateSigningSecret(db: Db, id: string, secret: string, previousExpiresAt: Date | null) {
    return db
      .updateTable('accounts')
      .set((eb) => ({
        signing_secret: secret,
        previous_signing_secret: previousExpiresAt ? eb.ref('signing_secret') : null,
        previous_signing_secret_expires_at: previousExpiresAt,
      }))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async getAccountByName(db: Db, name: string) {
    return db.selectFrom('accounts').selectAll().where('name', '=', name).orderBy('created_at').executeTakeFirst();
  }

  async insertApiKey(
    db: Db,
    row: { id: string; account_id: string; mode: 'test' | 'live'; secret_hash: string; last4: string; name: string },
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

  async listApiKeys(db: Db, accountId: string) {
    return db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
  }

  async revokeApiKey(db: Db, accountId: string, id: string) {
    return db
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** Tells every process listening on API_KEY_REVOKED_CHANNEL (delivered when the transaction commits). */
  async notifyApiKeyRevoked(db: Db, keyId: string) {
    await sql`select pg_notify(${API_KEY_REVOKED_CHANNEL}, ${keyId})`.execute(db);
  }
}
