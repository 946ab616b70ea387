import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentConfigInput } from '../../src/agents/agent.schemas';
import { verifySignatureHeader } from '../../src/domain/signature';
import { ask, openConversation, refundTool, seedAgent, type AgentFixture } from '../support/agents';
import { useTestStack } from '../support/stack';
import { json, useToolServer } from '../support/tool-server';

const ctx = useTestStack({ label: __filename });
const tools = useToolServer();

async function refundAgent(config: Partial<AgentConfigInput> = {}): Promise<AgentFixture> {
  return seedAgent(ctx.stack, { tools: [refundTool(tools.url)], guardrails: { requires_approval: ['refund_order'] }, ...config });
}

/** Waits for the run's workflow to end (time skips meanwhile), then reads the run from the API. */
async function settled(f: AgentFixture, runId: string) {
  await ctx.env.client.workflow.getHandle(runId).result();
  return (await f.call('GET', `/v1/runs/${runId}`)).body;
}

describe('agent runs: approvals', () => {
  it('waits for approval, then calls the tool (signed) and answers from its result', async () => {
    tools.handle((req, res) => json(res, 200, { refunded: true, amount: '42.00', order_id: req.body.arguments.order_id }));
    const f = await refundAgent();
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Please refund order 12345');
    assert.equal(run.status, 'requires_action', JSON.stringify(run));
    assert.equal(run.required_action.type, 'approve_tool_call');
    const [call] = run.required_action.tool_calls;
    assert.match(call.id, /^call_/);
    assert.deepEqual(call.arguments, { order_id: '12345' });
    const before = tools.requests.length;

    const approved = await f.call('POST', `/v1/runs/${run.id}/approvals`, { tool_call_id: call.id, decision: 'approve' });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const done = await settled(f, run.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.tool_calls[0].result_status, 'ok');
    assert.ok(Number.isInteger(done.tool_calls[0].latency_ms));
    assert.ok(done.reply, JSON.stringify(done));
    const sent = tools.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0]!.body, { tool: 'refund_order', arguments: { order_id: '12345' }, conversation_id: cnv, run_id: run.id });
    const secret = (await f.call('GET', '/v1/account')).body.signing_secret;
    assert.ok(verifySignatureHeader(secret, sent[0]!.raw, String(sent[0]!.headers['service-signature'])));

    const again = await f.call('POST', `/v1/runs/${run.id}/approvals`, { tool_call_id: call.id, decision: 'approve' });
    assert.equal(again.status, 409);
  });

  it('hands off with approval_rejected when the approver says no, and never calls the tool', async () => {
    const f = await refundAgent();
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Please refund order 54321');
    const before = tools.requests.length;
    const call = run.required_action.tool_calls[0];
    const rejected = await f.call('POST', `/v1/runs/${run.id}/approvals`, { tool_call_id: call.id, decision: 'reject', note: 'Outside the refund window' });
    assert.equal(rejected.status, 200);
    const done = await settled(f, run.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.handoff.reason, 'approval_rejected');
    assert.equal(done.tool_calls[0].result_status, 'rejected');
    assert.equal(tools.requests.length, before);
  });

  it('hands off with approval_expired when nobody decides in time; a late decision is 409', async () => {
    const f = await refundAgent({ timeouts: { approval_seconds: 600 } });
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Please refund order 11111');
    const call = run.required_action.tool_calls[0];
    const done = await settled(f, run.id);
    assert.equal(done.handoff.reason, 'approval_expired');
    assert.equal(done.tool_calls[0].result_status, 'expired');
    const late = await f.call('POST', `/v1/runs/${run.id}/approvals`, { tool_call_id: call.id, decision: 'approve' });
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'approval_expired');
    // A tool call the run does not have: 422 naming it (a 404 under /v1/runs/{id} speaks of the run).
    const unknown = await f.call('POST', `/v1/runs/${run.id}/approvals`, { tool_call_id: 'call_nope', decision: 'approve' });
    assert.equal(unknown.status, 422, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error.param, 'tool_call_id');
  });
});

describe('agent runs: asynchronous tools and timeouts', () => {
  it('moves to requires_action on 202 pending and resumes with the submitted result', async () => {
    tools.handle((_req, res) => json(res, 202, { status: 'pending' }));
    const f = await seedAgent(ctx.stack, { tools: [refundTool(tools.url)] });
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Please refund order 22222');
    assert.equal(run.status, 'requires_action', JSON.stringify(run));
    assert.equal(run.required_action.type, 'submit_tool_result');
    const call = run.required_action.tool_calls[0];
    const submitted = await f.call('POST', `/v1/runs/${run.id}/tool_results`, { tool_call_id: call.id, result: { refunded: true, amount: '10.00' } });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const done = await settled(f, run.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.tool_calls[0].result_status, 'ok');
    assert.ok(done.reply);
  });

  it('expires when the result never comes; a late result is 409 tool_result_expired', async () => {
    tools.handle((_req, res) => json(res, 202, { status: 'pending' }));
    const f = await seedAgent(ctx.stack, { tools: [refundTool(tools.url)], timeouts: { tool_result_seconds: 300 } });
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Please refund order 33333');
    const call = run.required_action.tool_calls[0];
    const done = await settled(f, run.id);
    assert.equal(done.status, 'expired');
    assert.equal(done.reply, null);
    const late = await f.call('POST', `/v1/runs/${run.id}/tool_results`, { tool_call_id: call.id, result: { refunded: true } });
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'tool_result_expired');
  });

  it('marks a slow tool timed_out and goes on without it', async () => {
    tools.handle(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 1500));
      if (!res.destroyed) json(res, 200, { refunded: true });
    });
    const f = await seedAgent(ctx.stack, { tools: [refundTool(tools.url, { timeout_ms: 300 })] });
    const cnv = await openConversation(f);
    const { run } = await ask(f, cnv, 'Please refund order 44444');
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.equal(run.tool_calls[0].result_status, 'timed_out');
    // The run goes on without the result: an apology, or a handoff to a person (never a failed run).
    assert.ok(run.reply !== null || run.handoff !== null, JSON.stringify(run));
  });
});
