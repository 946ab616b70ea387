import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { EXAMPLE_AGENT_NAME } from '../../src/app/dev-examples';
import { runCliProcess } from '../support/cli-process';
import { openConversation, seedAgent, type AgentFixture } from '../support/agents';
import { useTestStack } from '../support/stack';

/** `npm run cli -- demo traffic`: the example agent's conversations over the last days, written and removed. */
const ctx = useTestStack({ label: __filename });
let f: AgentFixture;

const cli = (args: string[]) => runCliProcess(args, { schema: ctx.stack.database.schema });

describe('demo traffic', () => {
  before(async () => {
    f = await seedAgent(ctx.stack, { name: EXAMPLE_AGENT_NAME });
  });

  it('writes 14 days of the example agent\'s conversations (answered, confirmed, handed off, reopened, tool calls, SMS) and removes exactly them', async () => {
    const db = ctx.stack.database.db;
    const own = await openConversation(f);
    const written = await cli(['demo', 'traffic', '--days', '14', '--account', f.accountId]);
    assert.equal(written.code, 0, written.stderr);
    const out = JSON.parse(written.stdout) as { conversations: number; runs: number; agent_id: string };
    assert.equal(out.agent_id, f.agentId);
    assert.ok(out.conversations >= 300, `about 40 a day (${out.conversations})`);

    const demo = sql<boolean>`c.metadata->>'demo' = 'traffic'`;
    const count = async (where: ReturnType<typeof sql>) => Number(((await sql<{ n: string }>`select count(*) as n from conversations c where ${demo} and ${where}`.execute(db)).rows[0]!).n);
    assert.equal(await count(sql`true`), out.conversations);
    const span = (await sql<{ first: Date; last: Date }>`select min(created_at) as first, max(created_at) as last from conversations c where ${demo}`.execute(db)).rows[0]!;
    assert.ok(span.last.getTime() - span.first.getTime() > 12 * 86_400_000, 'spread over the days');
    assert.ok(span.first.getTime() >= Date.now() - 14 * 86_400_000 - 60_000, 'none before the first day');
    assert.ok(await count(sql`c.channel = 'sms'`) > 0, 'SMS conversations');
    assert.ok(await count(sql`c.status = 'handed_off'`) > 0, 'handed off');
    assert.ok(await count(sql`c.status = 'closed'`) > 0, 'answered and closed');
    assert.ok(await count(sql`exists (select 1 from conversation_messages m where m.conversation_id = c.id and m.role = 'customer' and m.content in ('YES', 'Yes, that helped, thanks!'))`) > 0, 'confirmed');
    assert.ok(await count(sql`exists (select 1 from conversation_messages m where m.conversation_id = c.id and m.role = 'customer' and m.created_at > c.created_at + interval '1 day')`) > 0, 'reopened days later');
    assert.ok(await count(sql`exists (select 1 from runs r join run_tool_calls t on t.run_id = r.id where r.conversation_id = c.id)`) > 0, 'tool calls');
    assert.ok(await count(sql`exists (select 1 from conversation_messages m where m.conversation_id = c.id and m.role = 'human')`) > 0, 'teammates\' replies');

    // Each yes is a thumbs-up on the answer it followed, as the service stores it: the analytics count them confirmed.
    const yes = sql`exists (select 1 from conversation_messages m where m.conversation_id = c.id and m.role = 'customer' and m.content in ('YES', 'Yes, that helped, thanks!'))`;
    assert.equal(await count(sql`exists (select 1 from conversation_feedback fb join conversation_messages a on a.id = fb.message_id and a.role = 'agent' where fb.conversation_id = c.id and fb.rating = 'up')`), await count(yes));
    await ctx.stack.services.analyticsRollup.rollUpDue();
    const report = await f.call('GET', `/v1/analytics/agents/${f.agentId}?granularity=day&from=${encodeURIComponent(new Date(Date.now() - 14 * 86_400_000).toISOString())}`);
    assert.equal(report.status, 200, JSON.stringify(report.body));
    assert.ok(report.body.totals.resolved_confirmed > 0 && report.body.totals.feedback.up > 0, JSON.stringify(report.body.totals));

    // The knowledge gaps have something to show.
    const gaps = await f.call('GET', `/v1/analytics/knowledge_gaps?agent_id=${f.agentId}&from=${encodeURIComponent(new Date(Date.now() - 14 * 86_400_000).toISOString())}`);
    assert.equal(gaps.status, 200, JSON.stringify(gaps.body));
    assert.ok(gaps.body.data.length >= 3, 'several gap groups');
    assert.ok(gaps.body.data.some((g: { human_reply: unknown }) => g.human_reply), 'a teammate answered some');

    const removed = await cli(['demo', 'traffic', '--remove', '--account', f.accountId]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(JSON.parse(removed.stdout).conversations_removed, out.conversations);
    assert.equal(await count(sql`true`), 0);
    assert.equal(Number((await sql<{ n: string }>`select count(*) as n from runs where account_id = ${f.accountId}`.execute(db)).rows[0]!.n), 0, 'their runs went with them');
    assert.ok(await ctx.stack.services.conversations.conversationRepo.getConversation(db, own), 'a conversation that is not demo traffic stays');
  });

  it('refuses a period it cannot write, and an account without the example agent, changing nothing', async () => {
    const bad = await cli(['demo', 'traffic', '--days', '0', '--account', f.accountId]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--days must be a whole number from 1 to 90/);
    const other = await ctx.stack.newAccount('No example');
    const missing = await cli(['demo', 'traffic', '--account', other.accountId]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No "Example support agent"/);
  });
});
