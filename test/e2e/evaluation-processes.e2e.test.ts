import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { seedAgent } from '../support/agents';
import { pollUntil } from '../support/poll';
import { useRoleProcesses } from '../support/roles';
import { useTestStack } from '../support/stack';
import { json, lookupOrderTool, useToolServer } from '../support/tool-server';

// The API runs in the test process; the worker is a real child process, killed as a crash would be.
const ctx = useTestStack({ label: __filename, temporal: 'dev-server', worker: false });
const tools = useToolServer();
const roles = useRoleProcesses(ctx);

const spawnWorker = () => roles.spawn('worker');

describe('an evaluation across a worker crash', () => {
  it('loses no case and repeats none when the worker is killed mid-evaluation and restarted', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    tools.handle(async (req, res) => {
      await released; // the calls made before the crash hang until their worker is dead
      if (!res.destroyed) json(res, 200, { order_id: req.body.arguments.order_id, status: 'shipped' });
    });
    const worker = await spawnWorker();
    const f = await seedAgent(ctx.stack, {
      tools: [lookupOrderTool(tools, { timeout_ms: 30_000, idempotent: true })],
    });
    const orders = ['11111', '22222', '33333'];
    for (const order of orders) {
      const res = await f.call('POST', `/v1/agents/${f.agentId}/test_cases`, {
        name: `order ${order}`,
        turns: [{ customer: `Where is my order ${order}?`, expect: { tool_called: { tool: 'lookup_order', arguments: { order_id: order } }, reply: { contains_one_of: ['shipped'] } } }],
        tool_results: [{ tool: 'lookup_order', call_endpoint: true }],
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    for (const [i, question] of ['How long does standard shipping take?', 'How do I reset my password?', 'What is your refund policy?'].entries()) {
      await f.call('POST', `/v1/agents/${f.agentId}/test_cases`, { name: `faq ${i}`, turns: [{ customer: question, expect: { reply: {} } }, { customer: 'Thanks! And how long does standard shipping take?', expect: { reply: {} } }] });
    }
    const started = await f.call('POST', '/v1/evaluations', { agent_id: f.agentId });
    assert.equal(started.status, 201);

    await pollUntil('every order case to reach the tool', async () => new Set(tools.requests.map((r) => r.body.arguments.order_id)).size === orders.length, { timeoutMs: 30_000 });
    await worker.kill();
    release();
    await spawnWorker();

    const evaluation = await pollUntil('the evaluation to complete', async () => {
      const res = await f.call('GET', `/v1/evaluations/${started.body.id}`);
      return res.body.status === 'completed' && res.body;
    }, { timeoutMs: 120_000, intervalMs: 250 });
    assert.equal(evaluation.case_count, 6);
    assert.equal(evaluation.cases.length, 6, 'no case lost');
    for (const c of evaluation.cases) assert.deepEqual(c.failures, [], c.name);
    assert.equal(evaluation.passed, true);

    // None repeated: one customer message and one run per scripted turn, in one conversation per case.
    const db = ctx.stack.database.db;
    const conversations = await sql<{ n: number }>`select count(*)::int as n from conversations where metadata->>'evaluation_id' = ${evaluation.id}`.execute(db);
    assert.equal(conversations.rows[0]!.n, 6);
    const messages = await sql<{ n: number }>`select count(*)::int as n from conversation_messages m join conversations c on c.id = m.conversation_id where c.metadata->>'evaluation_id' = ${evaluation.id} and m.role = 'customer'`.execute(db);
    assert.equal(messages.rows[0]!.n, 3 + 3 * 2);
    const runs = await sql<{ n: number }>`select count(*)::int as n from runs r join conversations c on c.id = r.conversation_id where c.metadata->>'evaluation_id' = ${evaluation.id}`.execute(db);
    assert.equal(runs.rows[0]!.n, 3 + 3 * 2);
    assert.deepEqual(evaluation.cases.map((c: any) => c.run_ids.length).sort(), [1, 1, 1, 2, 2, 2]);
    const completed = await f.call('GET', '/v1/events?type=evaluation.completed');
    assert.equal(completed.body.data.filter((e: any) => e.data.id === evaluation.id).length, 1);
  });
});
