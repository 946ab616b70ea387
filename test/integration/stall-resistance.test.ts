import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openConversation, seedAgent } from '../support/agents';
import { apiClient } from '../support/http';
import { FakeSmsCarrier } from '../support/sms-messages-fake-carrier';
import { useTestStack } from '../support/stack';
import { json, useToolServer } from '../support/tool-server';

/**
 * Issue 28 (trust boundaries, round three): no request stalls the service. Each hostile request runs while
 * `/healthz` is asked again and again; the health answers and the hostile request's own time are printed as
 * diagnostics, never compared with a bound (this machine is shared and its load varies tenfold). What fails
 * the old code is the size of the input: 40 a's against `^(a|a)*b$` is 2^40 steps for a backtracking engine
 * (days: the test's own timeout ends it), linear for ours; the batch body is refused from its measured size,
 * so the refusal names the size the rendering would have had. The API, the worker and this test share one
 * process, as under `npm start`.
 */
const carrier = new FakeSmsCarrier();
const ctx = useTestStack({ label: __filename, smsCarriers: carrier });
const tools = useToolServer();

/** Runs `hostile` while probing /healthz back to back; returns the slowest health answer and the hostile request's own time. */
async function healthWhile<T>(hostile: () => Promise<T>): Promise<{ result: T; slowestHealthMs: number; probes: number; hostileMs: number }> {
  let done = false;
  let slowestHealthMs = 0;
  let probes = 0;
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${ctx.stack.baseUrl}/healthz`);
      await res.arrayBuffer();
      assert.equal(res.status, 200);
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
      probes++;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const started = performance.now();
  try {
    const result = await hostile();
    return { result, slowestHealthMs, probes, hostileMs: performance.now() - started };
  } finally {
    done = true;
    await probing;
  }
}

describe('#1: a tenant pattern never runs on a backtracking engine', () => {
  it('answers a customer message of 40 a\'s against a tool pattern ^(a|a)*b$, /healthz answering throughout', { timeout: 120_000 }, async (t) => {
    tools.handle((req, res) => json(res, 200, { status: 'found', code: req.body.arguments.code }));
    const f = await seedAgent(ctx.stack, {
      tools: [{
        name: 'lookup_code',
        description: 'Look up a voucher code',
        parameters: { type: 'object', properties: { code: { type: 'string', pattern: '^(a|a)*b$', description: 'voucher code' } }, required: ['code'] },
        endpoint: `${tools.url}/codes`,
        timeout_ms: 2000,
      }],
    });
    const conversation = await openConversation(f);
    const { result: res, slowestHealthMs, probes, hostileMs } = await healthWhile(() =>
      f.call('POST', `/v1/conversations/${conversation}/messages`, { role: 'customer', content: `Please look up my voucher code ${'a'.repeat(40)}` }));
    t.diagnostic(`message ${hostileMs.toFixed(0)} ms, slowest /healthz ${slowestHealthMs.toFixed(0)} ms over ${probes} probes`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.ok(['completed', 'requires_action', 'failed'].includes(res.body.run.status), `the run settled: ${res.body.run.status}`);
    assert.ok(probes > 0);
    // A value that does match is still found and sent.
    const ok = await f.call('POST', `/v1/conversations/${conversation}/messages`, { role: 'customer', content: 'Please look up my voucher code aaab' });
    assert.equal(ok.body.run.tool_calls[0]?.arguments.code, 'aaab', JSON.stringify(ok.body.run));
  });

  it('refuses, at save, a pattern the linear-time engine cannot run, naming where it is', async () => {
    const { accountId } = await ctx.stack.newAccount();
    await assert.rejects(
      ctx.stack.services.agents.createAgent({
        accountId,
        livemode: false,
        config: {
          name: 'Lookbehind',
          tools: [{ name: 't', description: 'd', parameters: { type: 'object', properties: { code: { type: 'string', pattern: '^(?<=x)y$' } } }, endpoint: `${tools.url}/t` }],
        },
      }),
      (err: any) => err.code === 'parameter_invalid' && err.param === 'tools.0.parameters.properties.code.pattern' && /linear-time engine/.test(err.message),
    );
  });
});

describe('#7: a batch body is measured before it is rendered', () => {
  it('refuses "{{a}}" x 320 for 6,000 recipients with 1,600-character values (9.9 MB) from its measured size, before rendering it', { timeout: 120_000 }, async (t) => {
    const { accountId, apiKey } = await ctx.stack.newAccount();
    await ctx.stack.services.senders.registerSender({ accountId, livemode: false, sender: 'Stall1' });
    const value = 'a'.repeat(1600);
    const body = JSON.stringify({
      from: 'Stall1',
      body: '{{a}}'.repeat(320),
      recipients: Array.from({ length: 6000 }, (_, i) => ({ to: `+1415555${String(i).padStart(4, '0')}`, variables: { a: value } })),
    });
    assert.ok(body.length > 9_800_000, `${body.length} bytes`);
    const call = apiClient(ctx.stack.baseUrl, apiKey);
    const { result: res, slowestHealthMs, probes, hostileMs } = await healthWhile(() => call('POST', '/v1/message_batches', body));
    t.diagnostic(`batch ${hostileMs.toFixed(0)} ms, slowest /healthz ${slowestHealthMs.toFixed(0)} ms over ${probes} probes`);
    assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 500));
    assert.equal(res.body.error.code, 'parameter_invalid');
    assert.equal(res.body.error.param, 'recipients.0.variables');
    assert.match(res.body.error.message, /512000 characters, at most 1600/);
    assert.equal((await ctx.stack.database.db.selectFrom('messages').select('id').where('account_id', '=', accountId).execute()).length, 0, 'nothing queued');
  });
});
