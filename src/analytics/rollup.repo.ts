import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema';

type Db = Kysely<DB> | Transaction<DB>;

/**
 * What a rollup reads from the raw tables (one hour at a time, every account) and writes into the facts and the
 * hourly aggregates. Console test chats and evaluation conversations (`test`) and agent-less conversations are
 * never read.
 */

/** The version of a conversation: its first run's (0 before any run). */
const CONVERSATION_VERSION = sql<number>`coalesce((select r0.agent_version from runs r0 where r0.conversation_id = c.id order by r0.created_at, r0.id limit 1), 0)`;

export interface StartedConversation {
  id: string;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  agent_version: number;
  channel: string;
  status: string;
  created_at: Date;
  closed_at: Date | null;
}

export class RollupRepo {
  async conversationsStartedIn(db: Db, from: Date, to: Date): Promise<StartedConversation[]> {
    const { rows } = await sql<StartedConversation>`
      select c.id, c.account_id, c.livemode, c.agent_id, ${CONVERSATION_VERSION} as agent_version, c.channel, c.status, c.created_at, c.closed_at
      from conversations c
      where c.created_at >= ${from} and c.created_at < ${to} and not c.test and c.agent_id is not null`.execute(db);
    return rows;
  }

  async messagesOf(db: Db, ids: string[]) {
    if (ids.length === 0) return [];
    return db.selectFrom('conversation_messages').select(['conversation_id', 'role', 'created_at']).where('conversation_id', '=', sql<string>`any(${ids})`).execute();
  }

  /** The handoffs of the conversations' runs: when the run ended and the reason. */
  async handoffsOf(db: Db, ids: string[]) {
    if (ids.length === 0) return [];
    const { rows } = await sql<{ conversation_id: string; at: Date; reason: string | null }>`
      select conversation_id, coalesce(completed_at, updated_at) as at, handoff->>'reason' as reason
      from runs where conversation_id = any(${ids}) and handoff is not null`.execute(db);
    return rows;
  }

  async feedbackOf(db: Db, ids: string[]) {
    if (ids.length === 0) return [];
    return db.selectFrom('conversation_feedback').select(['conversation_id', 'rating', 'created_at']).where('conversation_id', '=', sql<string>`any(${ids})`).execute();
  }

  async upsertFacts(db: Db, rows: Array<{ conversation_id: string; account_id: string; livemode: boolean; agent_id: string; agent_version: number; channel: string; started_at: Date; resolution: 'confirmed' | 'assumed' | null; resolved_at: Date | null; durable_at: Date | null; reopened_at: Date | null }>) {
    if (rows.length === 0) return;
    await db.insertInto('analytics_conversations').values(rows.map((r) => ({ ...r, computed_at: new Date() })))
      .onConflict((oc) => oc.column('conversation_id').doUpdateSet((eb) => ({
        agent_version: eb.ref('excluded.agent_version'), channel: eb.ref('excluded.channel'), resolution: eb.ref('excluded.resolution'),
        resolved_at: eb.ref('excluded.resolved_at'), durable_at: eb.ref('excluded.durable_at'), reopened_at: eb.ref('excluded.reopened_at'), computed_at: eb.ref('excluded.computed_at'),
      })))
      .execute();
  }

  /** Runs started in the hour, of non-test conversations with an agent. */
  async runsStartedIn(db: Db, from: Date, to: Date) {
    const { rows } = await sql<{ account_id: string; livemode: boolean; agent_id: string; agent_version: number; channel: string; status: string; answered: boolean; handed_off: boolean; confidence: number | null; latency_ms: number | null }>`
      select r.account_id, r.livemode, r.agent_id, r.agent_version, c.channel, r.status, r.reply is not null as answered, r.handoff is not null as handed_off,
        r.confidence, case when r.completed_at is not null then (extract(epoch from r.completed_at - r.created_at) * 1000)::float8 end as latency_ms
      from runs r join conversations c on c.id = r.conversation_id
      where r.created_at >= ${from} and r.created_at < ${to} and not c.test`.execute(db);
    return rows;
  }

  /** Tool calls of the runs started in the hour; `gated`: the version's guardrails require an approval for the tool. */
  async toolCallsOfRunsIn(db: Db, from: Date, to: Date) {
    const { rows } = await sql<{ account_id: string; livemode: boolean; agent_id: string; agent_version: number; channel: string; tool: string; status: string; gated: boolean }>`
      select r.account_id, r.livemode, r.agent_id, r.agent_version, c.channel, t.tool, t.status,
        coalesce((v.config->'guardrails'->'requires_approval') ? t.tool, false) as gated
      from runs r join conversations c on c.id = r.conversation_id join run_tool_calls t on t.run_id = r.id
      left join agent_versions v on v.agent_id = r.agent_id and v.version = r.agent_version
      where r.created_at >= ${from} and r.created_at < ${to} and not c.test`.execute(db);
    return rows;
  }

  /** Customer messages written in the hour, counted for their conversation's agent, version and channel. */
  async customerMessagesIn(db: Db, from: Date, to: Date) {
    const { rows } = await sql<{ account_id: string; livemode: boolean; agent_id: string; agent_version: number; channel: string; n: number }>`
      select c.account_id, c.livemode, c.agent_id, ${CONVERSATION_VERSION} as agent_version, c.channel, count(*)::int as n
      from conversation_messages m join conversations c on c.id = m.conversation_id
      where m.created_at >= ${from} and m.created_at < ${to} and m.role = 'customer' and not c.test and c.agent_id is not null
      group by c.id`.execute(db);
    return rows;
  }

  /** The agent's and humans' SMS replies written in the hour (their SMS ids derive from the message ids). */
  async smsRepliesIn(db: Db, from: Date, to: Date) {
    const { rows } = await sql<{ id: string; account_id: string; livemode: boolean; agent_id: string; agent_version: number; channel: string }>`
      select m.id, c.account_id, c.livemode, c.agent_id, ${CONVERSATION_VERSION} as agent_version, c.channel
      from conversation_messages m join conversations c on c.id = m.conversation_id
      where m.created_at >= ${from} and m.created_at < ${to} and m.role in ('agent', 'human') and m.channel = 'sms' and not c.test and c.agent_id is not null`.execute(db);
    return rows;
  }

  async smsByIds(db: Db, ids: string[]) {
    if (ids.length === 0) return [];
    return db.selectFrom('messages').select(['id', 'segments', 'price']).where('id', '=', sql<string>`any(${ids})`).execute();
  }

  /** Replaces the hour's rows; answers the accounts the hour had rows of before. */
  async replaceHour(db: Db, hour: Date, rows: Array<{ account_id: string; livemode: boolean; agent_id: string; agent_version: number; channel: string; counts: string; handoff_reasons: string; tool_calls: string; histograms: string; sms_cost: number }>): Promise<string[]> {
    const before = await db.deleteFrom('analytics_hourly').where('hour', '=', hour).returning('account_id').execute();
    if (rows.length > 0) await db.insertInto('analytics_hourly').values(rows.map((r) => ({ ...r, hour }))).execute();
    return [...new Set(before.map((r) => r.account_id))];
  }

  async watermark(db: Db): Promise<Date | undefined> {
    return (await db.selectFrom('analytics_rollup_state').select('watermark').where('id', '=', 'hourly').executeTakeFirst())?.watermark;
  }

  async setWatermark(db: Db, at: Date) {
    await db.insertInto('analytics_rollup_state').values({ id: 'hourly', watermark: at })
      .onConflict((oc) => oc.column('id').doUpdateSet({ watermark: at })).execute();
  }

  /**
   * The hours to roll again: those holding something written or changed after `since` (a message, a run, a
   * rating, a status change, an SMS price; each in its own hour and in its conversation's start hour), and the
   * start hours of conversations whose resolution came due or became durable in (since, now]. Without `since`:
   * every hour from the oldest conversation or run (the backlog).
   */
  async dirtyHours(db: Db, since: Date | undefined, now: Date): Promise<Date[]> {
    if (!since) {
      // Every hour from the oldest conversation or run on (two index lookups; empty hours roll cheaply).
      const { rows } = await sql<{ hour: Date }>`
        select generate_series(date_trunc('hour', least((select min(created_at) from conversations), (select min(created_at) from runs))),
          ${now}::timestamptz, interval '1 hour') as hour`.execute(db);
      return rows.filter((r) => r.hour !== null).map((r) => r.hour);
    }
    const { rows } = await sql<{ hour: Date }>`
      select distinct date_trunc('hour', t) as hour from (
        select c.created_at as t from conversation_events e join conversations c on c.id = e.conversation_id where e.created_at > ${since}
        union all select m.created_at from conversation_events e join conversation_messages m on m.id = e.message_id where e.created_at > ${since}
        union all select r.created_at from runs r where r.updated_at > ${since}
        union all select c.created_at from runs r join conversations c on c.id = r.conversation_id where r.updated_at > ${since}
        union all select c.created_at from conversation_feedback f join conversations c on c.id = f.conversation_id where f.created_at > ${since}
        union all select started_at from analytics_conversations where resolved_at > ${since} and resolved_at <= ${now}
        union all select started_at from analytics_conversations where durable_at > ${since} and durable_at <= ${now}
        union all select created_at from messages where updated_at > ${since} and origin = 'conversation'
      ) x where t <= ${now} order by 1`.execute(db);
    return rows.map((r) => r.hour);
  }

  async windowsOf(db: Db, accountIds: string[]): Promise<Map<string, number>> {
    if (accountIds.length === 0) return new Map();
    const rows = await db.selectFrom('accounts').select(['id', 'resolution_window_hours']).where('id', '=', sql<string>`any(${accountIds})`).execute();
    return new Map(rows.map((r) => [r.id, r.resolution_window_hours]));
  }
}
