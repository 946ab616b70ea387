import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import { sql } from 'kysely';
import { ask, openConversation, seedAgent } from '../support/agents';
import { pollUntil } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { useTestStack } from '../support/stack';
import { json, lookupOrderTool, useToolServer } from '../support/tool-server';

let logged = '';
const log = pino({ level: 'trace' }, new Writable({ write(chunk, _enc, cb) { logged += chunk.toString(); cb(); } }));
const ctx = useTestStack({ label: __filename, temporal: 'dev-server', log });
const tools = useToolServer();

const lookupTool = (idempotent: boolean) => lookupOrderTool(tools, { timeout_ms: 10_000, idempotent });

describe('guardrails on every run', () => {
  it('keeps a card number out of every table, log line, webhook payload and the Temporal history', async () => {
    const card = '4242 4242 4242 4242';
    const digits = card.replace(/ /g, '');
    const f = await seedAgent(ctx.stack);
    const receiver = await startReceiver();
    try {
      const endpoint = await f.call('POST', '/v1/webhook_endpoints', { url: `${receiver.url}/hooks`, events: ['*'] });
      assert.equal(endpoint.status, 201);
      const cnv = await openConversation(f, { context: { note: `card on file ${card}` } });
      const { run } = await ask(f, cnv, `My card ${card} was charged twice, what is your refund policy?`);
      assert.equal(run.status, 'completed');
      await pollUntil('the run.completed webhook', async () => receiver.requests.some((r) => r.rawBody.toString().includes('"run.completed"')), { timeoutMs: 15_000 });

      const transcript = await f.call('GET', `/v1/conversations/${cnv}/messages`);
      assert.match(transcript.body.data[0].content, /\[card ••••4242\]/);

      const { schema } = ctx.stack.database;
      const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = ${schema}`.execute(ctx.stack.database.db);
      for (const { table_name } of tables.rows) {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table_name)} t where t::text like ${`%${digits}%`} or t::text like ${`%${card}%`}`.execute(ctx.stack.database.db);
        assert.equal(rows[0]!.n, 0, `${table_name} holds the card number`);
      }
      for (const r of receiver.requests) assert.ok(!r.rawBody.toString().includes(digits) && !r.rawBody.toString().includes(card), 'a webhook payload holds the card number');
      assert.ok(logged.length > 0, 'the service logged something');
      assert.ok(!logged.includes(digits) && !logged.includes(card), 'a log line holds the card number');
      const history = await ctx.env.client.workflow.getHandle(run.id).fetchHistory();
      const text = JSON.stringify(history, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v));
      assert.ok(text.includes('agentRunWorkflow'), 'the history was read');
      assert.ok(!text.includes(digits) && !text.includes(card), 'the Temporal history holds the card number');
    } finally {
      await receiver.close();
    }
  });

  it('retries an idempotent tool once after a dropped connection', async () => {
    let seen = 0;
    tools.handle((_req, res) => {
      seen++;
      if (seen === 1) return void res.socket?.destroy();
      json(res, 200, { order_id: '12345', status: 'shipped', carrier: 'DHL' });
    });
    const f = await seedAgent(ctx.stack, { tools: [lookupTool(true)] });
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Where is my order 12345?');
    assert.equal(run.tool_calls[0].result_status, 'ok', JSON.stringify(run));
    assert.equal(seen, 2);
    assert.match(run.reply.content, /shipped/i);
  });

  it('never calls a live agent\'s tool over plain http, even one saved before https was required (M5)', async () => {
    let seen = 0;
    tools.handle((_req, res) => {
      seen++;
      json(res, 200, { order_id: '12345', status: 'shipped' });
    });
    const https = { ...lookupTool(true), endpoint: lookupTool(true).endpoint.replace(/^http:/, 'https:') };
    const f = await seedAgent(ctx.stack, { tools: [https] }, undefined, 'live');
    // A version published before the save-time rule: its endpoint is plain http.
    await sql`update agent_versions set config = replace(config::text, 'https://127.0.0.1', 'http://127.0.0.1')::jsonb where agent_id = ${f.agentId}`.execute(ctx.stack.database.db);
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Where is my order 12345?');
    assert.equal(run.tool_calls[0].result_status, 'error', JSON.stringify(run));
    assert.equal(run.tool_calls[0].error.code, 'endpoint_not_allowed');
    assert.equal(seen, 0, 'the tool endpoint was not called');
  });

  it('does not resend a non-idempotent tool call after a dropped connection', async () => {
    let seen = 0;
    tools.handle((_req, res) => {
      seen++;
      res.socket?.destroy();
    });
    const f = await seedAgent(ctx.stack, { tools: [lookupTool(false)] });
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Where is my order 54321?');
    assert.equal(run.status, 'completed');
    assert.equal(run.tool_calls[0].result_status, 'error');
    assert.equal(run.tool_calls[0].error.code, 'network_error');
    assert.equal(seen, 1);
  });
});
