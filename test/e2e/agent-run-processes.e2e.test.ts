import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openConversation, seedAgent } from '../support/agents';
import { apiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { freePort } from '../../src/platform/free-port';
import { useRoleProcesses } from '../support/roles';
import { useTestStack } from '../support/stack';
import { json, lookupOrderTool, useToolServer } from '../support/tool-server';

// The API of this file's stack runs in the test process; workers (and a second API) run as real child
// processes, so they can be killed as a crash would and restarted.
const ctx = useTestStack({ label: __filename, temporal: 'dev-server', worker: false });
const tools = useToolServer();
const { spawn } = useRoleProcesses(ctx);

const lookupTool = () => lookupOrderTool(tools, { timeout_ms: 30_000, idempotent: true });

/** Reads an SSE response until `until` returns true for an event; returns the events read. */
async function readEvents(res: Response, until: (e: { id: number; event: string }) => boolean) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: { id: number; event: string; data: any }[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
      if (!fields.event) continue;
      const e = { id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data) };
      events.push(e);
      if (until(e)) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

describe('agent runs across process failures', () => {
  it('finishes a run once, with one reply, when the worker is killed mid-run and restarted', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let calls = 0;
    tools.handle(async (_req, res) => {
      calls++;
      if (calls === 1) await released; // the first attempt hangs until its worker is dead
      if (!res.destroyed) json(res, 200, { order_id: '12345', status: 'shipped' });
    });
    const worker = await spawn('worker');
    const f = await seedAgent(ctx.stack, { tools: [lookupTool()] });
    const cnv = await openConversation(f);
    const posted = await f.call('POST', `/v1/conversations/${cnv}/messages?wait_ms=0`, { role: 'customer', content: 'Where is my order 12345?' });
    assert.equal(posted.status, 201);
    const runId = posted.body.run.id;
    await pollUntil('the tool to be called', async () => calls >= 1, { timeoutMs: 30_000 });
    await worker.kill();
    release();
    await spawn('worker');
    const run = await pollUntil('the run to complete', async () => {
      const r = (await f.call('GET', `/v1/runs/${runId}`)).body;
      return r.status === 'completed' && r;
    }, { timeoutMs: 60_000, intervalMs: 200 });
    assert.match(run.reply.content, /shipped/i, JSON.stringify(run));
    const transcript = await f.call('GET', `/v1/conversations/${cnv}/messages`);
    assert.deepEqual(transcript.body.data.map((m: any) => m.role), ['customer', 'agent']);
    const handle = ctx.env.client.workflow.getHandle(runId);
    await pollUntil('the run workflow to complete', async () => (await handle.describe()).status.name === 'COMPLETED', { timeoutMs: 20_000, intervalMs: 200 });
  });

  it('resumes a run stream with Last-Event-ID across an API restart', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    tools.handle(async (_req, res) => {
      await released;
      json(res, 200, { order_id: '22222', status: 'delivered' });
    });
    await spawn('worker');
    const port = await freePort();
    let api = await spawn('api', port);
    const f = await seedAgent(ctx.stack, { tools: [lookupTool()] });
    const call = apiClient(`http://127.0.0.1:${port}`, f.apiKey);
    const cnv = (await call('POST', '/v1/conversations', { agent_id: f.agentId })).body.id;
    const posted = await call('POST', `/v1/conversations/${cnv}/messages?wait_ms=0`, { role: 'customer', content: 'Where is my order 22222?' });
    const runId = posted.body.run.id;
    const headers = { authorization: `Bearer ${f.apiKey}` };

    const first = await readEvents(await fetch(`http://127.0.0.1:${port}/v1/runs/${runId}/events`, { headers }), (e) => e.event === 'tool.called');
    assert.deepEqual(first.map((e) => e.event), ['run.started', 'tool.called']);
    assert.equal(first[1]!.data.tool, 'lookup_order');
    await api.kill();
    release();
    await pollUntil('the run to complete', async () => (await ctx.stack.services.runs.getRun({ accountId: f.accountId, livemode: false, runId })).status === 'completed', { timeoutMs: 30_000 });
    api = await spawn('api', port);

    const rest = await readEvents(await fetch(`http://127.0.0.1:${port}/v1/runs/${runId}/events`, { headers: { ...headers, 'Last-Event-ID': String(first[1]!.id) } }), (e) => e.event === 'run.completed');
    assert.ok(rest.length >= 2);
    assert.equal(rest[0]!.id, first[1]!.id + 1);
    assert.ok(rest.slice(0, -1).every((e) => e.event === 'reply.delta'));
    assert.equal(rest.at(-1)!.event, 'run.completed');
    const replied = rest.filter((e) => e.event === 'reply.delta').map((e) => e.data.text).join('');
    const run = (await call('GET', `/v1/runs/${runId}`)).body;
    assert.equal(replied, run.reply.content);
  });
});
