import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { ask, openConversation, seedAgent, type AgentFixture } from '../support/agents';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';
import { visitorClient } from '../support/widget';
import { analyticsSeeder } from '../support/analytics-seed';
import { analyticsRollupWorkflowContract } from '../../workflows/shared/analytics.contracts';
import { IdPrefix, newId } from '../../src/domain/ids';
import { DAY_MS, HOUR_MS } from '../../src/analytics/conversation-facts';
import { DEFAULT_RESOLUTION_QUESTIONS } from '../../src/conversations/resolution-question';
import { pollUntil } from '../support/poll';

const ctx = useTestStack({ label: __filename });
const SHOP = 'https://shop.example';

/** Runs the schedule's workflow once on the test worker (what the Temporal schedule starts every few minutes). */
async function runRollupWorkflow(input: { hour?: string } = {}) {
  return ctx.stack.gateway.client.workflow.execute(analyticsRollupWorkflowContract.workflowType, {
    taskQueue: ctx.stack.config.temporal.taskQueue, workflowId: newId(IdPrefix.event), args: [input],
  }) as Promise<{ hours: number }>;
}

async function analytics(f: { call: AgentFixture['call'] }, agentId: string, query: string) {
  const res = await f.call('GET', `/v1/analytics/agents/${agentId}?${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const seeder = (f: { accountId: string; livemode: boolean; agentId: string }) => analyticsSeeder(ctx.stack.database.db, f);

const hourRows = (hour: Date) => sql<Record<string, unknown>>`select * from analytics_hourly where hour = ${hour} order by account_id, livemode, agent_id, channel, agent_version`.execute(ctx.stack.database.db).then((r) => r.rows);

describe('analytics: a real conversation, rolled up by the Temporal workflow, read through the API', () => {
  it('counts a thumbs-up (secret key) as a confirmed resolution; test and live and other accounts kept apart', async () => {
    const f = await seedAgent(ctx.stack, { guardrails: { requires_approval: [], restricted_topics: [], restricted_topic_action: 'handoff', confidence_floor: 0.2 } });
    const conversationId = await openConversation(f);
    const answered = await ask(f, conversationId, 'How long do refunds take?');
    assert.equal(answered.run?.status, 'completed', JSON.stringify(answered));
    const messages = await f.call('GET', `/v1/conversations/${conversationId}/messages`);
    const agentMessage = messages.body.data.find((m: { role: string }) => m.role === 'agent');
    assert.ok(agentMessage, `the agent answered: ${JSON.stringify(messages.body)} ${JSON.stringify(answered)}`);

    const wrongMessage = await f.call('POST', `/v1/conversations/${conversationId}/feedback`, { rating: 'up', message_id: messages.body.data[0].id });
    assert.equal(wrongMessage.status, 422, 'a customer message is not an answer to rate');
    const bad = await f.call('POST', `/v1/conversations/${conversationId}/feedback`, { rating: 'great' });
    assert.equal(bad.status, 400);
    const rated = await f.call('POST', `/v1/conversations/${conversationId}/feedback`, { rating: 'up', message_id: agentMessage.id });
    assert.equal(rated.status, 201, JSON.stringify(rated.body));

    const other = await ctx.stack.newAccount('Other');
    const stranger = apiClient(ctx.stack.baseUrl, other.apiKey);
    assert.equal((await stranger('POST', `/v1/conversations/${conversationId}/feedback`, { rating: 'down' })).status, 404, "another account's conversation");
    assert.equal((await stranger('GET', `/v1/analytics/agents/${f.agentId}`)).status, 404, "another account's agent");
    const live = await ctx.stack.services.accounts.createApiKey({ accountId: f.accountId, mode: 'live' });
    const liveCall = apiClient(ctx.stack.baseUrl, live.secret);
    assert.equal((await liveCall('GET', `/v1/analytics/agents/${f.agentId}`)).status, 404, 'a test agent is not seen by a live key');
    assert.equal((await liveCall('POST', `/v1/conversations/${conversationId}/feedback`, { rating: 'down' })).status, 404, 'nor its conversations');

    const done = await runRollupWorkflow();
    assert.ok(done.hours >= 1);
    const from = new Date(Date.now() - DAY_MS).toISOString();
    const body = await analytics(f, f.agentId, `granularity=hour&from=${encodeURIComponent(from)}`);
    assert.equal(body.totals.conversations, 1);
    assert.equal(body.totals.customer_messages, 1);
    assert.equal(body.totals.runs, 1);
    assert.equal(body.totals.involved, 1);
    assert.equal(body.totals.resolved_confirmed, 1);
    assert.equal(body.totals.resolution_rate, 1);
    assert.equal(body.totals.feedback.up, 1);
    assert.ok([24, 25].includes(body.series.length), 'every hour from a day ago to the end of this hour, empty ones too');
    assert.equal(body.series.reduce((s: number, p: { metrics: { runs: number } }) => s + p.metrics.runs, 0), 1);
    assert.notEqual(body.totals.run_latency_ms.median, null, 'a latency median from the hourly histogram');
    assert.equal(body.totals.confidence.reduce((s: number, b: { runs: number }) => s + b.runs, 0), 1, 'the answered run in the confidence distribution');

    const tooMany = await f.call('GET', `/v1/analytics/agents/${f.agentId}?granularity=hour&from=2026-01-01T00:00:00Z&to=2026-06-01T00:00:00Z`);
    assert.equal(tooMany.status, 422);
    const backwards = await f.call('GET', `/v1/analytics/agents/${f.agentId}?from=2026-06-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
    assert.equal(backwards.status, 422);
  });

  it('answers the settings unchanged to an empty settings body, and changes only what a body names', async () => {
    const f = await seedAgent(ctx.stack);
    const empty = await f.call('POST', '/v1/analytics/settings', {});
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    assert.deepEqual([empty.body.time_zone, empty.body.resolution_window_hours], ['UTC', 24]);
    const zoned = await f.call('POST', '/v1/analytics/settings', { time_zone: 'Europe/Paris' });
    assert.deepEqual([zoned.body.time_zone, zoned.body.resolution_window_hours], ['Europe/Paris', 24]);
  });

  it('takes a thumbs-up from the website visitor (publishable key and visitor token) on their own conversation only', async () => {
    const f = await seedAgent(ctx.stack);
    const key = await f.call('POST', '/v1/publishable_keys', { agent_id: f.agentId, allowed_origins: [SHOP] });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const anon = visitorClient(ctx.stack.baseUrl, { key: key.body.key, origin: SHOP });
    const opened = await anon('POST', '/v1/conversations', { agent_id: f.agentId });
    assert.equal(opened.status, 201);
    const visitor = visitorClient(ctx.stack.baseUrl, { key: key.body.key, origin: SHOP, token: opened.body.visitor_token });
    const rated = await visitor('POST', `/v1/conversations/${opened.body.id}/feedback`, { rating: 'up' });
    assert.equal(rated.status, 201, JSON.stringify(rated.body));
    assert.equal(rated.body.rating, 'up');
    const someoneElse = await openConversation(f);
    assert.equal((await visitor('POST', `/v1/conversations/${someoneElse}/feedback`, { rating: 'up' })).status, 404, "another customer's conversation");
    assert.equal((await visitor('GET', `/v1/analytics/agents/${f.agentId}`)).status, 403, 'analytics are not for publishable keys');
  });
});

const LENIENT = { requires_approval: [], restricted_topics: [], restricted_topic_action: 'handoff' as const, confidence_floor: 0.2 };

describe('analytics: confirmed by a yes to the resolution question on SMS', () => {
  it('asks after the answer, takes a plain yes as a confirmed resolution without a run, and answers anything more', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'sms'], resolution_question: { enabled: true }, guardrails: LENIENT });
    const conversations = ctx.stack.services.conversations;
    const phone = '+447400112233';
    const sms = (content: string) => conversations.receiveCustomerMessage({ accountId: f.accountId, livemode: f.livemode, agentId: f.agentId, channel: 'sms', customer: { phone, locale: 'fr' }, content });
    const transcript = async (id: string, n: number) => pollUntil(`${n} messages`, async () => {
      const list = (await f.call('GET', `/v1/conversations/${id}/messages`)).body.data as Array<{ id: string; role: string; content: string }>;
      return list.length === n && list;
    });
    const asked = await sms('How long do refunds take?');
    assert.ok(asked.message.run, 'a question starts a run');
    const [, answer] = await transcript(asked.conversation.id, 2);
    assert.equal(answer!.role, 'agent');
    assert.ok(answer!.content.endsWith(`\n\n${DEFAULT_RESOLUTION_QUESTIONS.fr}`), `the answer ends with the question in the customer's language: ${answer!.content}`);

    const yes = await sms('Oui merci !');
    assert.equal(yes.conversation.id, asked.conversation.id);
    assert.equal(yes.message.run, undefined, 'a yes is not a new question for the agent');
    const rows = await sql<{ rating: string; message_id: string }>`select rating, message_id from conversation_feedback where conversation_id = ${asked.conversation.id}`.execute(ctx.stack.database.db);
    assert.deepEqual(rows.rows, [{ rating: 'up', message_id: answer!.id }], 'the yes rates the answer it followed');

    // The rollup counts it confirmed, at once (no window to wait for).
    await ctx.stack.services.analyticsRollup.rollUpDue();
    const body = await analytics(f, f.agentId, `granularity=hour&from=${encodeURIComponent(new Date(Date.now() - DAY_MS).toISOString())}`);
    assert.equal(body.totals.resolved_confirmed, 1);
    assert.equal(body.totals.reopened, 0, 'the yes itself is no reopen');

    // A second yes (the latest message is the customer's, not an answer) and a yes with a question both go to the agent.
    const more = await sms('Yes, and how do I return a parcel?');
    assert.ok(more.message.run, 'a yes with a question is a new question');
    const again = (await sql<{ n: number }>`select count(*)::int as n from conversation_feedback where conversation_id = ${asked.conversation.id}`.execute(ctx.stack.database.db)).rows[0]!.n;
    assert.equal(again, 1);
  });

  it('without the setting, a yes is a message for the agent like any other', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'sms'], guardrails: LENIENT });
    const conversations = ctx.stack.services.conversations;
    const sms = (content: string) => conversations.receiveCustomerMessage({ accountId: f.accountId, livemode: f.livemode, agentId: f.agentId, channel: 'sms', customer: { phone: '+447400112244' }, content });
    const asked = await sms('How long do refunds take?');
    const list = await pollUntil('the answer', async () => {
      const l = (await f.call('GET', `/v1/conversations/${asked.conversation.id}/messages`)).body.data as Array<{ role: string; content: string }>;
      return l.length === 2 && l;
    });
    assert.ok(!list[1]!.content.includes(DEFAULT_RESOLUTION_QUESTIONS.en), 'no question asked');
    assert.ok((await sms('yes')).message.run, 'a run answers it');
  });
});

describe('analytics rollups: idempotent, late events, time passing, modes', () => {
  it('re-rolling an hour gives the same rows; a late run lands in its hour; a reopen on day 6 leaves durable, day 8 does not', async () => {
    const f = await seedAgent(ctx.stack);
    const rollup = ctx.stack.services.analyticsRollup;
    const s = seeder(f);
    const hour = new Date(Math.floor((Date.now() - 20 * DAY_MS) / HOUR_MS) * HOUR_MS);
    const t = (ms: number) => new Date(hour.getTime() + 10 * 60_000 + ms);
    const resolvedAt = (c: number) => 60_000 + c; // answer at +1 min, window 24 h
    const W = 24 * HOUR_MS;
    const convs = [];
    for (const day of [6, 8]) {
      const c = await s.conversation(t(0));
      const m = await s.message(c, 'customer', t(0));
      await s.run(c, m, t(0));
      await s.message(c, 'agent', t(60_000));
      convs.push({ c, day });
    }
    // Answer then handoff (not resolved), on the same hour.
    const h = await s.conversation(t(0));
    const hm = await s.message(h, 'customer', t(0));
    await s.run(h, hm, t(0));
    await s.message(h, 'agent', t(60_000));
    const hm2 = await s.message(h, 'customer', t(120_000));
    await s.run(h, hm2, t(120_000), { handoff: 'low_confidence' });

    // Two days later: both resolved (assumed), neither durable yet.
    await rollup.rollUpHour({ hour, now: t(2 * DAY_MS) });
    let [row] = await hourRows(hour);
    assert.deepEqual(pick(row!.counts), { conversations: 3, involved: 3, resolved: 2, resolved_assumed: 2, reopened: 0, durable: 0, handed_off: 1, runs: 4 });
    assert.deepEqual(row!.handoff_reasons, { low_confidence: 1 });

    // Idempotent: the same hour rolled again as of the same moment gives the same rows.
    const before = await hourRows(hour);
    await rollup.rollUpHour({ hour, now: t(2 * DAY_MS) });
    assert.deepEqual(await hourRows(hour), before);

    // A late run (started in the hour, written now) lands in its hour with the due rollup.
    await s.run(h, hm2, t(30 * 60_000), { latencyMs: 400 });
    // Customers come back on day 6 and day 8 after the resolution moment.
    for (const { c, day } of convs) await s.message(c, 'customer', t(resolvedAt(W) + day * DAY_MS));
    await rollup.rollUpDue({ now: t(resolvedAt(W) + 7 * DAY_MS + HOUR_MS) });
    [row] = await hourRows(hour);
    assert.deepEqual(pick(row!.counts), { conversations: 3, involved: 3, resolved: 2, resolved_assumed: 2, reopened: 1, durable: 1, handed_off: 1, runs: 5 });

    // Read back through the API, with the API's rates.
    const body = await analytics(f, f.agentId, `granularity=day&from=${encodeURIComponent(new Date(hour.getTime() - DAY_MS).toISOString())}&to=${encodeURIComponent(new Date(hour.getTime() + DAY_MS + HOUR_MS).toISOString())}`);
    assert.equal(body.totals.reopen_rate, 0.5);
    assert.equal(body.totals.durable_rate, 0.5);
    assert.equal(body.totals.handoff_rate, 0.3333);
    assert.equal(body.totals.automation_rate, 0.6667);
    // 49 hours from the hour a day before: three local days, whatever the hour of the day (an end at midnight is exclusive).
    assert.equal(body.series.length, 3, "three local days touch the 49 hours asked for");
  });

  it('keeps test and live apart: a live agent of the same account counts only live traffic', async () => {
    const f = await seedAgent(ctx.stack);
    const live = await ctx.stack.services.accounts.createApiKey({ accountId: f.accountId, mode: 'live' });
    const liveAgent = await ctx.stack.services.agents.createAgent({ accountId: f.accountId, livemode: true, config: { name: 'Live support', channels: ['chat'] } });
    await ctx.stack.services.agents.publishAgent({ accountId: f.accountId, livemode: true, agentId: liveAgent.id });
    const hour = new Date(Math.floor((Date.now() - 3 * DAY_MS) / HOUR_MS) * HOUR_MS);
    for (const [who, n] of [[{ ...f, livemode: false }, 2], [{ accountId: f.accountId, livemode: true, agentId: liveAgent.id }, 1]] as const) {
      const s = seeder(who);
      for (let i = 0; i < n; i++) {
        const c = await s.conversation(new Date(hour.getTime() + 60_000));
        await s.message(c, 'customer', new Date(hour.getTime() + 60_000));
      }
    }
    await ctx.stack.services.analyticsRollup.rollUpHour({ hour });
    const q = `from=${encodeURIComponent(new Date(hour.getTime() - DAY_MS).toISOString())}`;
    assert.equal((await analytics(f, f.agentId, q)).totals.conversations, 2);
    const liveBody = await analytics({ call: apiClient(ctx.stack.baseUrl, live.secret) }, liveAgent.id, q);
    assert.equal(liveBody.totals.conversations, 1);
    assert.equal(liveBody.livemode, true);
    assert.equal((await f.call('GET', `/v1/analytics/agents/${liveAgent.id}`)).status, 404, 'the test key does not see the live agent');
  });
});

function pick(counts: unknown) {
  const c = counts as Record<string, number>;
  return { conversations: c.conversations, involved: c.involved, resolved: c.resolved, resolved_assumed: c.resolved_assumed, reopened: c.reopened, durable: c.durable, handed_off: c.handed_off, runs: c.runs };
}
