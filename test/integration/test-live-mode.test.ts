import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createCarrierRouter } from '../../src/sms/carrier-registry';
import { buildSmsCarriersConfig, CarriersConfigSchema } from '../../src/config/sms-carriers';
import { silentLogger } from '../../src/observability/logger';
import { buildTestConfig } from '../support/config';
import { apiClient, type ApiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { SmscSimulator } from '../support/smsc-simulator';
import { startTestStack, type TestStack } from '../support/stack';
import { createTimeSkippingEnv } from '../support/temporal';

/**
 * Test and live mode, as in Stripe: one account holds a test key and a live key; each sees and changes
 * only its own mode's objects (another mode's id is 404 resource_missing, as if it did not exist), test
 * SMS never reach a real carrier, and events go only to endpoints of the mode of what emitted them.
 *
 * The only carrier configured is an SMPP one bound to the SMSC simulator for every destination: test-mode
 * messages must go to the sandbox anyway.
 */
let env: TestWorkflowEnvironment;
let stack: TestStack;
const smsc = new SmscSimulator();

interface Side {
  mode: 'test' | 'live';
  livemode: boolean;
  call: ApiClient;
}
let accountId: string;
let testSide: Side;
let liveSide: Side;

before(async () => {
  env = await createTimeSkippingEnv();
  const port = await smsc.start();
  const carriers = CarriersConfigSchema.parse([
    { name: 'smsc', type: 'smpp', host: '127.0.0.1', port, system_id: 'test', password: 'secret', prefixes: ['+'], priority: 1, max_mps: 1000, window: 20 },
  ]);
  const config = buildTestConfig({ sms: buildSmsCarriersConfig(carriers, undefined) });
  stack = await startTestStack({ label: __filename, env, config, smsCarriers: createCarrierRouter(config, silentLogger()) });
  await pollUntil('the SMPP carrier to bind to the simulator', () => smsc.boundSessions > 0, { intervalMs: 5, timeoutMs: 5000 });

  const account = await stack.newAccount('Two modes', 'test');
  accountId = account.accountId;
  const live = await stack.services.accounts.createApiKey({ accountId, mode: 'live' });
  testSide = { mode: 'test', livemode: false, call: apiClient(stack.baseUrl, account.apiKey) };
  liveSide = { mode: 'live', livemode: true, call: apiClient(stack.baseUrl, live.secret) };
});
after(async () => {
  await stack?.close();
  await smsc.stop();
  await env?.teardown();
});

const both = () => [[testSide, liveSide], [liveSide, testSide]] as const;

/** `path` is 404 resource_missing for `side` (the object is of the other mode). */
async function assertMissing(side: Side, method: string, path: string, body?: unknown) {
  const res = await side.call(method, path, body);
  assert.equal(res.status, 404, `${side.mode} ${method} ${path}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, 'resource_missing');
}

const ids = (list: { data: { id: string }[] }) => list.data.map((o) => o.id);

describe('test and live mode', () => {
  it('keeps knowledge bases and webhook endpoints of each mode invisible to the other key', async () => {
    const kb = new Map<Side, string>();
    const endpoint = new Map<Side, string>();
    for (const side of [testSide, liveSide]) {
      const created = await side.call('POST', '/v1/knowledge_bases', { name: `Help (${side.mode})` });
      assert.equal(created.status, 201);
      assert.equal(created.body.livemode, side.livemode);
      kb.set(side, created.body.id);
      const e = await side.call('POST', '/v1/webhook_endpoints', { url: `https://hooks.example.com/${side.mode}`, events: ['*'] });
      assert.equal(e.status, 201, JSON.stringify(e.body));
      assert.equal(e.body.livemode, side.livemode);
      endpoint.set(side, e.body.id);
    }
    for (const [own, other] of both()) {
      const bases = await own.call('GET', '/v1/knowledge_bases');
      assert.deepEqual(ids(bases.body), [kb.get(own)]);
      assert.ok(bases.body.data.every((b: { livemode: boolean }) => b.livemode === own.livemode));
      assert.equal((await own.call('GET', `/v1/knowledge_bases/${kb.get(own)}`)).body.livemode, own.livemode);
      await assertMissing(own, 'GET', `/v1/knowledge_bases/${kb.get(other)}`);
      await assertMissing(own, 'GET', `/v1/knowledge_bases/${kb.get(other)}/sources`);
      await assertMissing(own, 'POST', `/v1/knowledge_bases/${kb.get(other)}/query`, { query: 'refunds' });
      await assertMissing(own, 'GET', `/v1/knowledge_bases?starting_after=${kb.get(other)}`);
      await assertMissing(own, 'GET', `/v1/knowledge_bases?ending_before=${kb.get(other)}`);

      const endpoints = await own.call('GET', '/v1/webhook_endpoints');
      assert.deepEqual(ids(endpoints.body), [endpoint.get(own)]);
      await assertMissing(own, 'GET', `/v1/webhook_endpoints/${endpoint.get(other)}`);
      await assertMissing(own, 'POST', `/v1/webhook_endpoints/${endpoint.get(other)}`, { description: 'taken over' });
      await assertMissing(own, 'POST', `/v1/webhook_endpoints/${endpoint.get(other)}/rotate_secret`);
      await assertMissing(own, 'GET', `/v1/webhook_endpoints?starting_after=${endpoint.get(other)}`);
    }
    // Deleting across modes is 404 and deletes nothing; each key deletes its own.
    await assertMissing(testSide, 'DELETE', `/v1/knowledge_bases/${kb.get(liveSide)}`);
    await assertMissing(testSide, 'DELETE', `/v1/webhook_endpoints/${endpoint.get(liveSide)}`);
    assert.equal((await liveSide.call('GET', `/v1/knowledge_bases/${kb.get(liveSide)}`)).status, 200);
    assert.equal((await liveSide.call('GET', `/v1/webhook_endpoints/${endpoint.get(liveSide)}`)).body.description, null);
    for (const side of [testSide, liveSide]) {
      assert.equal((await side.call('DELETE', `/v1/knowledge_bases/${kb.get(side)}`)).status, 200);
      assert.equal((await side.call('DELETE', `/v1/webhook_endpoints/${endpoint.get(side)}`)).status, 200);
    }
  });

  it('starts conversations only with an agent of the same mode, and shows each mode its own agents, numbers and senders', async () => {
    const agent = new Map<Side, string>();
    const number = new Map<Side, string>();
    const sender = new Map<Side, string>();
    for (const side of [testSide, liveSide]) {
      const scope = { accountId, livemode: side.livemode };
      // The same name in both modes: names are unique within a mode.
      const created = await stack.services.agents.createAgent({ ...scope, config: { name: 'Support', channels: ['chat'] } });
      await stack.services.agents.publishAgent({ ...scope, agentId: created.id });
      agent.set(side, created.id);
      number.set(side, (await stack.services.phoneNumbers.provisionPhoneNumber({ ...scope, number: side.livemode ? '+447400200002' : '+447400200001' })).id);
      sender.set(side, (await stack.services.senders.registerSender({ ...scope, sender: `Mode${side.mode}` })).id);
    }
    for (const [own, other] of both()) {
      const agents = await own.call('GET', '/v1/agents');
      assert.deepEqual(ids(agents.body), [agent.get(own)]);
      assert.equal(agents.body.data[0].livemode, own.livemode);
      await assertMissing(own, 'GET', `/v1/agents/${agent.get(other)}`);
      await assertMissing(own, 'GET', `/v1/agents?starting_after=${agent.get(other)}`);

      const numbers = await own.call('GET', '/v1/phone_numbers');
      assert.deepEqual(ids(numbers.body), [number.get(own)]);
      assert.equal(numbers.body.data[0].livemode, own.livemode);
      await assertMissing(own, 'GET', `/v1/phone_numbers/${number.get(other)}`);
      const senders = await own.call('GET', '/v1/senders');
      assert.deepEqual(ids(senders.body), [sender.get(own)]);
      assert.equal(senders.body.data[0].livemode, own.livemode);
      await assertMissing(own, 'GET', `/v1/senders/${sender.get(other)}`);

      // The other mode's agent does not exist for this key.
      const refused = await own.call('POST', '/v1/conversations', { agent_id: agent.get(other) });
      assert.equal(refused.status, 404, JSON.stringify(refused.body));
      assert.equal(refused.body.error.param, 'agent_id');
      const opened = await own.call('POST', '/v1/conversations', { agent_id: agent.get(own) });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      assert.equal(opened.body.livemode, own.livemode);
      const conversations = await own.call('GET', '/v1/conversations');
      assert.deepEqual(ids(conversations.body), [opened.body.id]);
      await assertMissing(other, 'GET', `/v1/conversations/${opened.body.id}`);
      await assertMissing(other, 'GET', `/v1/conversations/${opened.body.id}/messages`);
      await assertMissing(other, 'POST', `/v1/conversations/${opened.body.id}/close`);
      await assertMissing(other, 'GET', `/v1/conversations?starting_after=${opened.body.id}`);
    }
    // An agent of one mode cannot be attached to a number, or use a knowledge base, of the other.
    await assert.rejects(
      stack.services.phoneNumbers.attachAgent({ accountId, livemode: true, phoneNumberId: number.get(liveSide)!, agentId: agent.get(testSide)! }),
      // As if it did not exist: the body's agent_id names no agent of this mode (422: the number is there).
      (err: { code?: string; param?: string }) => err.code === 'parameter_unprocessable' && err.param === 'agent_id',
    );
    const testBase = (await testSide.call('POST', '/v1/knowledge_bases', { name: 'Test-only help' })).body.id;
    await assert.rejects(
      stack.services.agents.createAgent({ accountId, livemode: true, config: { name: 'Crossed', knowledge_bases: [{ id: testBase }] } }),
      (err: { code?: string; param?: string }) => err.code === 'parameter_invalid',
    );
  });

  it('sends test-mode SMS through the sandbox only, live ones through the real carrier; events and deliveries follow the mode', async () => {
    const receiver = await startReceiver();
    const endpoints = new Map<Side, string>();
    // The test endpoint is the local receiver; the live one must be https and is never reached here.
    for (const side of [testSide, liveSide]) {
      const url = side.livemode ? 'https://127.0.0.1:1/live-hook' : `${receiver.url}/test-hook`;
      const e = await side.call('POST', '/v1/webhook_endpoints', { url, events: ['message.updated'] });
      assert.equal(e.status, 201, JSON.stringify(e.body));
      endpoints.set(side, e.body.id);
    }
    const scope = (side: Side) => ({ accountId, livemode: side.livemode });
    await stack.services.senders.registerSender({ ...scope(testSide), sender: 'AcmeTest' });
    await stack.services.senders.registerSender({ ...scope(liveSide), sender: 'AcmeLive' });

    // A sender of the other mode is not the key's to send from.
    const crossed = await testSide.call('POST', '/v1/messages', { to: '+447400300001', from: 'AcmeLive', body: 'crossed' });
    assert.equal(crossed.status, 403, JSON.stringify(crossed.body));
    assert.equal(crossed.body.error.code, 'sender_not_registered');

    const sent = new Map<Side, string>();
    for (const side of [testSide, liveSide]) {
      const res = await side.call('POST', '/v1/messages', { to: side.livemode ? '+447400300002' : '+447400300003', from: side.livemode ? 'AcmeLive' : 'AcmeTest', body: `hello from ${side.mode} mode` });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.livemode, side.livemode);
      sent.set(side, res.body.id);
    }
    for (const side of [testSide, liveSide]) {
      await pollUntil(`the ${side.mode} message to be delivered`, async () => (await side.call('GET', `/v1/messages/${sent.get(side)}`)).body.status === 'delivered');
    }
    const texts = smsc.submits.map((s) => s.text);
    assert.ok(texts.includes('hello from live mode'), 'the live message reached the real carrier');
    assert.ok(!texts.some((t) => t.includes('test mode') || t === 'crossed'), 'no test-mode message reached the real carrier');
    const testMessage = (await testSide.call('GET', `/v1/messages/${sent.get(testSide)}`)).body;
    assert.equal(testMessage.carrier, 'test-sandbox');

    for (const [own, other] of both()) {
      const list = await own.call('GET', '/v1/messages');
      assert.deepEqual(ids(list.body), [sent.get(own)]);
      await assertMissing(own, 'GET', `/v1/messages/${sent.get(other)}`);
      await assertMissing(own, 'POST', `/v1/messages/${sent.get(other)}/cancel`);
      await assertMissing(own, 'GET', `/v1/messages?starting_after=${sent.get(other)}`);
    }

    // Events carry the mode of the message that emitted them and go only to that mode's endpoint.
    for (const [own, other] of both()) {
      const events = await pollUntil(`${own.mode} message.updated events`, async () => {
        const body = (await own.call('GET', '/v1/events?type=message.updated')).body;
        return body.data.some((e: { data: { status: string } }) => e.data.status === 'delivered') && body.data;
      });
      for (const event of events) {
        assert.equal(event.livemode, own.livemode);
        assert.equal(event.data.id, sent.get(own));
        await assertMissing(other, 'GET', `/v1/events/${event.id}`);
        const deliveries = (await own.call('GET', `/v1/events/${event.id}/deliveries`)).body.data;
        assert.deepEqual(deliveries.map((d: { endpoint_id: string }) => d.endpoint_id), [endpoints.get(own)]);
        assert.ok(deliveries.every((d: { livemode: boolean }) => d.livemode === own.livemode));
      }
      // Redelivering to the other mode's endpoint is as if it did not exist (422 naming endpoint_id: the event is there).
      const redeliver = await own.call('POST', `/v1/events/${events[0].id}/redeliver`, { endpoint_id: endpoints.get(other) });
      assert.equal(redeliver.status, 422, JSON.stringify(redeliver.body));
      assert.equal(redeliver.body.error.param, 'endpoint_id');
    }
    await pollUntil('the test endpoint to receive the delivered status', () =>
      receiver.requests.some((r) => JSON.parse(r.rawBody.toString()).data.status === 'delivered'),
    );
    for (const r of receiver.requests) {
      const body = JSON.parse(r.rawBody.toString());
      assert.equal(body.livemode, false);
      assert.equal(body.data.id, sent.get(testSide));
    }
    await receiver.close();
  });

  it('never replays one mode\'s response for the other mode\'s key (idempotency keys are per mode)', async () => {
    const headers = { 'Idempotency-Key': 'same-key-both-modes' };
    const first = await testSide.call('POST', '/v1/knowledge_bases', { name: 'Idempotent' }, headers);
    const second = await liveSide.call('POST', '/v1/knowledge_bases', { name: 'Idempotent' }, headers);
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.headers.get('idempotent-replayed'), null);
    assert.notEqual(second.body.id, first.body.id);
    assert.deepEqual([first.body.livemode, second.body.livemode], [false, true]);
    const replay = await liveSide.call('POST', '/v1/knowledge_bases', { name: 'Idempotent' }, headers);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.id, second.body.id);
  });

  it('gives an inbound SMS the mode of the number it reached, and takes a real carrier\'s only for live numbers', async () => {
    await stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: true, number: '+447400400002' });
    await stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: false, number: '+447400400001' });
    // Through the real carrier: to the live number (stored, live), then to the test number (not its traffic).
    await smsc.sendMo({ from: '+447400499999', to: '+447400400002', body: 'hello live number' });
    await smsc.sendMo({ from: '+447400499999', to: '+447400400001', body: 'hello test number' });
    const inbound = await pollUntil('the live inbound message', async () => {
      const data = (await liveSide.call('GET', '/v1/messages?direction=inbound')).body.data;
      return data.length > 0 && data;
    });
    assert.deepEqual(inbound.map((m: { body: string; livemode: boolean }) => [m.body, m.livemode]), [['hello live number', true]]);
    const testInbound = (await testSide.call('GET', '/v1/messages?direction=inbound')).body.data;
    assert.deepEqual(testInbound, [], 'a real carrier never reaches a test-mode number');
  });
});
