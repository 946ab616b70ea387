import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

export class AccountRepo {
  async insertAccount(db: Db, row: { id: string; name: string; signing_secret: string }) {
    return db.insertInto('accounts').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getAccountById(db: Db, id: string) {
    return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async getSigningSecret(db: Db, id: string) {
    const row = await db.selectFrom('accounts').select('signing_secret').where('id', '=', id).executeTakeFirst();
    return row?.signing_secret;
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
}
