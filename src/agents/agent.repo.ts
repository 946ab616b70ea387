import type { Kysely, Transaction } from 'kysely';
import { paginate, type PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import { inScope, type Scope } from '../db/scope';
import type { StoredAgentConfig } from '../db/tables/agents';

type Db = Kysely<DB> | Transaction<DB>;

/** JSON with object keys sorted (jsonb does not keep key order). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

export class AgentRepo {
  async insertAgent(db: Db, row: { id: string; account_id: string; livemode: boolean; name: string; draft: StoredAgentConfig }) {
    return db
      .insertInto('agents')
      .values({ ...row, draft: JSON.stringify(row.draft), live_version: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async getAgentById(db: Db, scope: Scope, id: string) {
    return db.selectFrom('agents').selectAll().where(inScope(scope)).where('id', '=', id).executeTakeFirst();
  }

  async getAgentByName(db: Db, scope: Scope, name: string) {
    return db.selectFrom('agents').selectAll().where(inScope(scope)).where('name', '=', name).executeTakeFirst();
  }

  async listAgents(db: Kysely<DB>, scope: Scope, page: PageParams) {
    return paginate(db, 'agents', db.selectFrom('agents').selectAll().where(inScope(scope)), page);
  }

  async updateDraft(db: Db, id: string, draft: StoredAgentConfig, name: string) {
    return db
      .updateTable('agents')
      .set({ draft: JSON.stringify(draft), name, updated_at: new Date() })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * Freezes the draft as the next version and makes it live, in one transaction; undefined (nothing
   * written) when the stored draft is no longer `checked`, the draft the caller validated. A draft equal
   * to the live version publishes nothing: the agent is answered as it is (`published: false`).
   */
  async publishDraft(db: Kysely<DB>, id: string, checked: unknown) {
    return db.transaction().execute(async (tx) => {
      const agent = await tx.selectFrom('agents').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
      if (canonicalJson(agent.draft) !== canonicalJson(checked)) return undefined;
      if (agent.live_version !== null) {
        const live = await this.getVersion(tx, id, agent.live_version);
        if (live && canonicalJson(live.config) === canonicalJson(agent.draft)) return { row: agent, published: false };
      }
      const version = (agent.live_version ?? 0) + 1;
      const last = await tx
        .selectFrom('agent_versions')
        .select((eb) => eb.fn.max('version').as('v'))
        .where('agent_id', '=', id)
        .executeTakeFirst();
      const next = Math.max(version, Number(last?.v ?? 0) + 1);
      await tx.insertInto('agent_versions').values({ agent_id: id, version: next, config: JSON.stringify(agent.draft) }).execute();
      const row = await tx.updateTable('agents').set({ live_version: next, updated_at: new Date() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
      return { row, published: true };
    });
  }

  /** Stores the draft as a hidden snapshot version (negative numbers), reusing the latest when unchanged. */
  async snapshotDraft(db: Kysely<DB>, id: string, config: unknown): Promise<number> {
    return db.transaction().execute(async (tx) => {
      await tx.selectFrom('agents').select('id').where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
      const latest = await this.latestSnapshot(tx, id);
      if (latest && canonicalJson(latest.config) === canonicalJson(config)) return latest.version;
      const next = (latest?.version ?? 0) - 1;
      await tx.insertInto('agent_versions').values({ agent_id: id, version: next, config: JSON.stringify(config) }).execute();
      return next;
    });
  }

  /** The version `snapshotDraft` would reuse for `config` (the latest snapshot, when equal), without storing one. */
  async reusableSnapshot(db: Db, id: string, config: unknown): Promise<number | undefined> {
    const latest = await this.latestSnapshot(db, id);
    return latest && canonicalJson(latest.config) === canonicalJson(config) ? latest.version : undefined;
  }

  private async latestSnapshot(db: Db, id: string) {
    return db.selectFrom('agent_versions').selectAll().where('agent_id', '=', id).where('version', '<', 0).orderBy('version', 'asc').limit(1).executeTakeFirst();
  }

  async getVersion(db: Db, agentId: string, version: number) {
    return db.selectFrom('agent_versions').selectAll().where('agent_id', '=', agentId).where('version', '=', version).executeTakeFirst();
  }

  async listVersions(db: Db, agentId: string) {
    return db.selectFrom('agent_versions').selectAll().where('agent_id', '=', agentId).orderBy('version', 'desc').execute();
  }
}
