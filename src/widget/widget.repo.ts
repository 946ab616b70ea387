import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { inScope, type Scope } from '../db/scope';

type Db = Kysely<DB> | Transaction<DB>;

export type PublishableKeyRow = Awaited<ReturnType<WidgetRepo['getActiveKey']>> & {};
export type IdentitySecretRow = Awaited<ReturnType<WidgetRepo['listIdentitySecrets']>>[number];

/** Publishable keys, agents' identity secrets and the agent's `visitor_identity` column. */
export class WidgetRepo {
  async insertKey(db: Db, row: Insertable<DB['publishable_keys']>) {
    return db.insertInto('publishable_keys').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async getActiveKey(db: Db, key: string) {
    return db.selectFrom('publishable_keys').selectAll().where('key', '=', key).where('revoked_at', 'is', null).executeTakeFirst();
  }

  async getKey(db: Db, scope: Scope, id: string) {
    return db.selectFrom('publishable_keys').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async listKeys(db: Db, scope: Scope, agentId?: string) {
    let q = db.selectFrom('publishable_keys').selectAll().where(inScope(scope));
    if (agentId) q = q.where('agent_id', '=', agentId);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100).execute();
  }

  async setAllowedOrigins(db: Db, scope: Scope, id: string, origins: string[]) {
    return db.updateTable('publishable_keys').set({ allowed_origins: origins }).where(inScope(scope)).where('id', '=', id).where('revoked_at', 'is', null).returningAll().executeTakeFirst();
  }

  async revokeKey(db: Db, scope: Scope, id: string) {
    return db.updateTable('publishable_keys').set({ revoked_at: new Date() }).where(inScope(scope)).where('id', '=', id).where('revoked_at', 'is', null).returningAll().executeTakeFirst();
  }

  async touchKey(db: Db, id: string) {
    await db.updateTable('publishable_keys').set({ last_used_at: new Date() }).where('id', '=', id).execute();
  }

  /** Whether some active key of the given mode... of any account allows this origin (a preflight carries no key). */
  async isOriginAllowedByAnyKey(db: Db, origin: string) {
    const row = await db
      .selectFrom('publishable_keys')
      .select('id')
      .where('revoked_at', 'is', null)
      .where(sql<boolean>`allowed_origins @> array[${origin}]::text[]`)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async getAgentIdentityRequirement(db: Db, agentId: string) {
    const row = await db.selectFrom('agents').select('visitor_identity').where('id', '=', agentId).executeTakeFirst();
    return row?.visitor_identity;
  }

  /** The agent's widget settings; `forUpdate` locks the row for a read-merge-write in a transaction. */
  async getAgentWidgetSettings(db: Db, scope: Scope, agentId: string, opts: { forUpdate?: boolean } = {}) {
    const q = db.selectFrom('agents').select(['id', 'name', 'visitor_identity', 'widget_appearance']).where(inScope(scope)).where('id', '=', agentId);
    return (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst();
  }

  /** The widget settings of the agent a publishable key serves (the key's grant already names account and mode). */
  async getAgentWidgetConfig(db: Db, agentId: string) {
    return db.selectFrom('agents').select(['id', 'name', 'visitor_identity', 'widget_appearance']).where('id', '=', agentId).executeTakeFirst();
  }

  async setAgentWidgetSettings(db: Db, scope: Scope, agentId: string, value: { visitor_identity: 'optional' | 'required'; widget_appearance: Record<string, unknown> }) {
    return db
      .updateTable('agents')
      .set({ visitor_identity: value.visitor_identity, widget_appearance: JSON.stringify(value.widget_appearance) })
      .where(inScope(scope))
      .where('id', '=', agentId)
      .returning(['id', 'name', 'visitor_identity', 'widget_appearance'])
      .executeTakeFirst();
  }

  async insertIdentitySecret(db: Db, row: Insertable<DB['agent_identity_secrets']>) {
    return db.insertInto('agent_identity_secrets').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async listIdentitySecrets(db: Db, scope: Scope, agentId: string) {
    return db.selectFrom('agent_identity_secrets').selectAll().where(inScope(scope)).where('agent_id', '=', agentId).orderBy('created_at', 'desc').execute();
  }

  /** The sealed secret `kid` names for this agent, while it is valid. */
  async getValidIdentitySecret(db: Db, agentId: string, kid: string) {
    return db
      .selectFrom('agent_identity_secrets')
      .select(['secret_sealed'])
      .where('agent_id', '=', agentId)
      .where('id', '=', kid)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', new Date())]))
      .executeTakeFirst();
  }

  /** Sets an end to the agent's other valid secrets (those ending later or never), for a rotation's overlap. */
  async expireOtherIdentitySecrets(db: Db, agentId: string, exceptId: string, at: Date) {
    await db
      .updateTable('agent_identity_secrets')
      .set({ expires_at: at })
      .where('agent_id', '=', agentId)
      .where('id', '!=', exceptId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', at)]))
      .execute();
  }

  async deleteIdentitySecret(db: Db, scope: Scope, agentId: string, id: string) {
    return db.deleteFrom('agent_identity_secrets').where(inScope(scope)).where('agent_id', '=', agentId).where('id', '=', id).returningAll().executeTakeFirst();
  }
}
