/**
 * The data of `npm run bench:inbox` (and of bench/inbox-profile.ts): `conversations` conversations in one
 * account (`handedOff` of them handed off) with `messages` messages, written with SQL in one transaction
 * (triggers off, the inbox columns then set with one UPDATE), then ANALYZE. Answers messages per conversation.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/schema';
import { connectPostgres } from '../src/db/database';
import { TEST_DATABASE_URL } from '../test/support/config';

export const WORDS = ['parcel', 'invoice', 'refund', 'password', 'delivery', 'warranty', 'discount', 'subscription', 'battery', 'charger', 'table', 'chair', 'lamp', 'sofa', 'voucher', 'address', 'account', 'payment', 'tracking', 'return'];

export async function loadInboxData(db: Kysely<DB>, o: { accountId: string; agentId: string; conversations: number; handedOff: number; messages: number }): Promise<number> {
  const { accountId, agentId } = o;
  const CONVERSATIONS = o.conversations;
  const HANDED_OFF = o.handedOff;
  const perConversation = Math.max(1, Math.floor(o.messages / CONVERSATIONS));
  // A connection of its own for the load, without the service pool's 30 s statement timeout.
  const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s;
  const loader = connectPostgres({ url: TEST_DATABASE_URL, schema, max: 1, statementTimeoutMs: 1_800_000 });
  await loader.db.transaction().execute(async (tx) => {
    await sql`set local session_replication_role = replica`.execute(tx);
    await sql`insert into conversations (id, account_id, livemode, agent_id, channel, status, customer, context, tags, metadata, handoff, created_at, updated_at, unread, test)
      select 'cnv_bench' || lpad(i::text, 6, '0'), ${accountId}, false, ${agentId}, (array['chat','sms','email'])[1 + i % 3],
        case when i < ${HANDED_OFF} then 'handed_off' when i % 5 = 0 then 'closed' else 'active' end,
        jsonb_build_object('name', 'Customer ' || i, 'email', 'customer' || i || '@example.com'), '{}'::jsonb, '[]'::jsonb, '{}'::jsonb,
        case when i < ${HANDED_OFF} then jsonb_build_object('reason', 'restricted_topic', 'queue', 'support', 'summary', 'bench', 'suggested_reply', '') end,
        now() - (i || ' minutes')::interval, now() - (i || ' minutes')::interval, i < ${HANDED_OFF}, false
      from generate_series(0, ${CONVERSATIONS - 1}) i`.execute(tx);
    await sql`insert into conversation_messages (id, account_id, livemode, conversation_id, seq, role, channel, content, attachments, run_id, created_at)
      select 'msg_bench' || lpad(c::text, 6, '0') || lpad(m::text, 3, '0'), ${accountId}, false, 'cnv_bench' || lpad(c::text, 6, '0'), m + 1,
        case when m % 2 = 0 then 'customer' else 'agent' end, 'chat',
        'About my ' || (${sql.val(WORDS)}::text[])[1 + (c * 7 + m) % ${WORDS.length}] || ' and the ' || (${sql.val(WORDS)}::text[])[1 + (c * 3 + m * 5) % ${WORDS.length}] || ' of order ' || (c * 31 + m),
        '[]'::jsonb, null, now() - (c || ' minutes')::interval + (m || ' seconds')::interval
      from generate_series(0, ${CONVERSATIONS - 1}) c, generate_series(0, ${perConversation - 1}) m`.execute(tx);
    await sql`update conversations c set last_message_at = m.created_at, last_message_preview = left(m.content, 200), last_message_role = m.role,
        waiting_since = case when c.status = 'handed_off' then m.created_at end, unread_at = case when c.unread then m.created_at end
      from (select distinct on (conversation_id) conversation_id, created_at, content, role from conversation_messages where account_id = ${accountId} order by conversation_id, seq desc) m
      where m.conversation_id = c.id`.execute(tx);
  });
  // The test server runs without autovacuum: the tables are vacuumed (visibility map, for index-only scans)
  // and their statistics gathered here, as autovacuum would after these inserts on a production server.
  await sql`vacuum analyze conversations`.execute(loader.db);
  await sql`vacuum analyze conversation_messages`.execute(loader.db);
  await loader.close();
  return perConversation;
}
