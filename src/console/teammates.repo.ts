import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import type { ConsoleInviteTable } from '../db/tables/console';
import type { Role } from '../domain/roles';

type Db = Kysely<DB> | Transaction<DB>;

const TEAMMATE_COLUMNS = ['id', 'account_id', 'email', 'display_name', 'role', 'disabled_at', 'created_at'] as const;

/** Console users (teammates) and their invites: the SQL of TeammatesService. */
export class TeammatesRepo {
  async listTeammates(db: Db, accountId: string) {
    return db.selectFrom('console_users').select(TEAMMATE_COLUMNS).where('account_id', '=', accountId).orderBy('created_at').execute();
  }

  async getTeammate(db: Db, accountId: string, userId: string) {
    return db.selectFrom('console_users').select(TEAMMATE_COLUMNS).where('account_id', '=', accountId).where('id', '=', userId).executeTakeFirst();
  }

  /**
   * The account's enabled owners, locked for the rest of the transaction: two changes racing to take the
   * last two owners away wait on each other, and the second sees the first's result.
   */
  async lockEnabledOwners(db: Transaction<DB>, accountId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('console_users')
      .select('id')
      .where('account_id', '=', accountId)
      .where('role', '=', 'owner')
      .where('disabled_at', 'is', null)
      .forUpdate()
      .execute();
    return rows.map((r) => r.id);
  }

  /** Serialises the account's changes to teammates (the owners row lock above does not cover a first owner). */
  async lockAccount(db: Transaction<DB>, accountId: string): Promise<void> {
    await db.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst();
  }

  async setRole(db: Db, accountId: string, userId: string, role: Role) {
    return db.updateTable('console_users').set({ role }).where('account_id', '=', accountId).where('id', '=', userId).returning('id').executeTakeFirst();
  }

  async setDisabled(db: Db, accountId: string, userId: string, disabled: boolean) {
    return db
      .updateTable('console_users')
      .set({ disabled_at: disabled ? new Date() : null })
      .where('account_id', '=', accountId)
      .where('id', '=', userId)
      .returning('id')
      .executeTakeFirst();
  }

  async deleteTeammate(db: Db, accountId: string, userId: string) {
    return db.deleteFrom('console_users').where('account_id', '=', accountId).where('id', '=', userId).returning('id').executeTakeFirst();
  }

  async deleteSessionsOfUser(db: Db, userId: string) {
    await db.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
  }

  async insertInvite(db: Db, row: Insertable<ConsoleInviteTable>) {
    return db.insertInto('console_invites').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** Open invites: not used, not revoked, not expired (the oldest first, at most `limit`). */
  async listOpenInvites(db: Db, accountId: string, limit: number) {
    return db
      .selectFrom('console_invites')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', new Date())
      .orderBy('created_at')
      .limit(limit)
      .execute();
  }

  async getOpenInviteByHash(db: Db, tokenHash: string) {
    return db
      .selectFrom('console_invites as i')
      .innerJoin('accounts as a', 'a.id', 'i.account_id')
      .selectAll('i')
      .select('a.name as account_name')
      .where('i.token_hash', '=', tokenHash)
      .where('i.used_at', 'is', null)
      .where('i.revoked_at', 'is', null)
      .where('i.expires_at', '>', new Date())
      .executeTakeFirst();
  }

  /** Spends an open invite (the first acceptance wins); undefined when it was used, revoked or expired meanwhile. */
  async spendInvite(db: Db, tokenHash: string) {
    return db
      .updateTable('console_invites')
      .set({ used_at: new Date() })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', new Date())
      .returningAll()
      .executeTakeFirst();
  }

  async revokeInvite(db: Db, accountId: string, inviteId: string) {
    return db
      .updateTable('console_invites')
      .set({ revoked_at: new Date() })
      .where('account_id', '=', accountId)
      .where('id', '=', inviteId)
      .where('used_at', 'is', null)
      .returning(['id', 'role'])
      .executeTakeFirst();
  }

  async emailTaken(db: Db, email: string): Promise<boolean> {
    const row = await db.selectFrom('console_users').select('id').where(sql<boolean>`lower(email) = ${email.toLowerCase()}`).executeTakeFirst();
    return row !== undefined;
  }
}
