import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PhoneNumbersService } from '../../src/numbers/phone-numbers.service';
import { StatementCounter } from '../support/db';
import { apiClient } from '../support/http';
import { useTestStack } from '../support/stack';
import { fictionalNumber } from '../support/twilio-voice';

/**
 * The objects a developer reads and sets over the API: the agent's whole config (no secrets), calls,
 * email addresses, and a number's agent and call flow; each mode sees only its own.
 */
const ctx = useTestStack({ label: __filename, worker: false });

async function account() {
  const { accountId, apiKey } = await ctx.stack.newAccount();
  const { secret } = await ctx.stack.services.accounts.createApiKey({ accountId, mode: 'live' });
  return { accountId, call: apiClient(ctx.stack.baseUrl, apiKey), live: apiClient(ctx.stack.baseUrl, secret) };
}

async function publishedAgent(accountId: string, config: Record<string, unknown>) {
  const agents = ctx.stack.services.agents;
  const created = await agents.createAgent({ accountId, livemode: false, config: config as never });
  await agents.publishAgent({ accountId, livemode: false, agentId: created.id });
  return created.id;
}

describe('the agent object', () => {
  it('shows the version\'s whole config: instructions, bases with filters and locale key, whole tools with approval', async () => {
    const a = await account();
    const kb = await a.call('POST', '/v1/knowledge_bases', { name: 'Help' });
    const tool = {
      name: 'order_status',
      description: 'Look up the status of an order',
      parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^ORD-\\d+$' } }, required: ['order_id'] },
      endpoint: 'https://tools.example.com/orders',
      timeout_ms: 4000,
      idempotent: true,
    };
    const agentId = await publishedAgent(a.accountId, {
      name: 'Orders', channels: ['chat', 'sms'], locales: ['en', 'de'], instructions: 'Be brief. Never promise refunds.',
      knowledge_bases: [{ id: kb.body.id, filter: { product: { in: ['shoes', 'bags'] } } }],
      locale_filter_key: 'locale',
      tools: [tool, { name: 'refund', description: 'Refund an order', endpoint: 'https://tools.example.com/refund' }],
      guardrails: { requires_approval: ['refund'], restricted_topics: ['legal advice'], restricted_topic_action: 'refuse', confidence_floor: 0.6 },
    });
    const res = await a.call('GET', `/v1/agents/${agentId}`);
    assert.equal(res.status, 200);
    const agent = res.body;
    assert.equal(agent.instructions, 'Be brief. Never promise refunds.');
    assert.deepEqual(agent.knowledge_sources, [kb.body.id]);
    assert.deepEqual(agent.knowledge_bases, [{ id: kb.body.id, filter: { product: { in: ['shoes', 'bags'] } } }]);
    assert.equal(agent.locale_filter_key, 'locale');
    assert.deepEqual(agent.tools, ['order_status', 'refund']);
    assert.deepEqual(agent.tool_definitions, [
      { ...tool, requires_approval: false },
      { name: 'refund', description: 'Refund an order', parameters: { type: 'object', properties: {} }, endpoint: 'https://tools.example.com/refund', timeout_ms: 10_000, idempotent: false, requires_approval: true },
    ]);
    assert.deepEqual(agent.guardrails, { requires_approval: ['refund'], restricted_topics: ['legal advice'], restricted_topic_action: 'refuse', confidence_floor: 0.6 });
    assert.deepEqual(agent.timeouts, { approval_seconds: 3600, tool_result_seconds: 3600 });
    assert.equal(agent.version, 1);

    // Nothing that signs or authenticates anything is part of it.
    assert.doesNotMatch(JSON.stringify(agent), /whsec_|sk_test_|sk_live_|secret/i);
    const listed = await a.call('GET', '/v1/agents');
    assert.deepEqual(listed.body.data[0], agent, 'the list shows the same object');
    assert.equal((await a.live('GET', `/v1/agents/${agentId}`)).status, 404, 'a test agent is not the live key\'s');
  });
});

describe('phone numbers: agent and call flow over the API', () => {
  it('sets the SMS agent and the voice call flow; bad input is refused and changes nothing', async () => {
    const a = await account();
    const agentId = await publishedAgent(a.accountId, { name: 'Phones', channels: ['sms', 'voice'] });
    const chatOnly = await publishedAgent(a.accountId, { name: 'Chat only', channels: ['chat'] });
    const draft = await ctx.stack.services.agents.createAgent({ accountId: a.accountId, livemode: false, config: { name: 'Draft', channels: ['sms'] } });
    const pn = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId: a.accountId, livemode: false, number: fictionalNumber() });
    const flow = { actions: [{ action: 'say', text: 'Welcome.' }, { action: 'connect_agent', agent_id: agentId, transfer_to: '+14155550199' }], record: true };

    const set = await a.call('POST', `/v1/phone_numbers/${pn.id}`, { agent_id: agentId, voice_call_flow: flow });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.agent_id, agentId);
    assert.deepEqual(set.body.voice_call_flow, { ...flow, actions: [flow.actions[0], { ...flow.actions[1], greeting: 'How can I help you?' }], language: 'en-US' });

    const before = set.body;
    const refusals: [unknown, number, string, string][] = [
      [{ agent_id: null, voice_call_flow: { actions: [{ action: 'dial', number: '+14155550199' }, { action: 'say', text: 'x' }] } }, 422, 'parameter_unprocessable', 'voice_call_flow.actions.0.action'],
      [{ agent_id: draft.id }, 422, 'agent_not_live', 'agent_id'],
      [{ agent_id: 'agt_missing' }, 422, 'parameter_unprocessable', 'agent_id'],
      [{ agent_id: null, voice_call_flow: { actions: [{ action: 'connect_agent', agent_id: 'agt_missing', transfer_to: '+14155550199' }] } }, 422, 'parameter_unprocessable', 'voice_call_flow.actions'],
      [{ agent_id: chatOnly }, 422, 'channel_not_supported', 'agent_id'],
      [{ agent_id: null, voice_call_flow: { actions: [{ action: 'connect_agent', agent_id: chatOnly, transfer_to: '+14155550199' }] } }, 422, 'channel_not_supported', 'voice_call_flow.actions'],
      [{ call_flow: flow }, 400, 'parameter_unknown', 'call_flow'],
    ];
    for (const [body, status, code, param] of refusals) {
      const res = await a.call('POST', `/v1/phone_numbers/${pn.id}`, body);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.error.code, code);
      assert.equal(res.body.error.param, param);
    }
    assert.deepEqual((await a.call('GET', `/v1/phone_numbers/${pn.id}`)).body, before, 'nothing changed');

    const cleared = await a.call('POST', `/v1/phone_numbers/${pn.id}`, { voice_call_flow: null });
    assert.equal(cleared.body.voice_call_flow, null);
    assert.equal(cleared.body.agent_id, agentId, 'what is not given stays');
    assert.equal((await a.live('POST', `/v1/phone_numbers/${pn.id}`, { agent_id: null })).status, 404);
  });
  it('writes an agent and a call flow with one UPDATE, after one read of the number', async () => {
    const a = await account();
    const agentId = await publishedAgent(a.accountId, { name: 'Both', channels: ['sms', 'voice'] });
    const pn = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId: a.accountId, livemode: false, number: fictionalNumber() });
    const counter = new StatementCounter();
    const phoneNumbers = new PhoneNumbersService({ db: ctx.stack.database.db.withPlugin(counter), agents: ctx.stack.services.agents });
    const scope = { accountId: a.accountId, livemode: false, phoneNumberId: pn.id };
    const flow = { actions: [{ action: 'connect_agent', agent_id: agentId, transfer_to: '+14155550199' }] };

    const both = await phoneNumbers.updatePhoneNumber({ ...scope, agentId, flow: flow as never });
    assert.equal(both.agent_id, agentId);
    assert.equal((both.voice_call_flow as { actions: { agent_id: string }[] }).actions[0]!.agent_id, agentId);
    assert.deepEqual(counter.kinds, ['select', 'update'], 'the number read for its 404, then one UPDATE');
    assert.deepEqual(await phoneNumbers.getPhoneNumber(scope), both, 'both stored');

    counter.reset();
    const cleared = await phoneNumbers.updatePhoneNumber({ ...scope, agentId: null, flow: null });
    assert.deepEqual([cleared.agent_id, cleared.voice_call_flow], [null, null]);
    assert.deepEqual(counter.kinds, ['update'], 'nothing to check: the UPDATE alone');
    await assert.rejects(phoneNumbers.updatePhoneNumber({ ...scope, livemode: true, agentId: null }), (e: { code?: string }) => e.code === 'resource_missing');

    counter.reset();
    assert.deepEqual(await phoneNumbers.updatePhoneNumber(scope), cleared);
    assert.deepEqual(counter.kinds, ['select'], 'nothing given: a read');
  });
});

describe('email addresses', () => {
  it('are created, listed, retrieved, given an agent and deleted; test-mode addresses claim nothing, live ones need a verified domain; modes apart', async () => {
    const a = await account();
    const agentId = await publishedAgent(a.accountId, { name: 'Mail', channels: ['email'] });
    const smsOnly = await publishedAgent(a.accountId, { name: 'Texts', channels: ['sms'] });
    const domain = `${a.accountId.slice(-10).toLowerCase()}.example.com`;

    const created = await a.call('POST', '/v1/email_addresses', { address: `help@${domain}`, display_name: 'Help desk' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.object, 'email_address');
    assert.equal(created.body.agent_id, null);
    assert.equal(created.body.livemode, false);
    const id = created.body.id;

    assert.equal((await a.call('POST', '/v1/email_addresses', { address: `HELP@${domain}` })).status, 409, 'registered already');
    assert.equal((await a.call('POST', '/v1/email_addresses', { address: 'not an address' })).body.error.param, 'address');
    const refused = await a.call('POST', `/v1/email_addresses/${id}`, { agent_id: smsOnly });
    assert.equal(refused.body.error.code, 'channel_not_supported');
    // An agent that does not exist: 422 naming agent_id (a 404 here would speak of the address).
    const noAgent = await a.call('POST', `/v1/email_addresses/${id}`, { agent_id: 'agt_missing' });
    assert.equal(noAgent.status, 422, JSON.stringify(noAgent.body));
    assert.deepEqual([noAgent.body.error.code, noAgent.body.error.param], ['parameter_unprocessable', 'agent_id']);

    const attached = await a.call('POST', `/v1/email_addresses/${id}`, { agent_id: agentId });
    assert.equal(attached.status, 200);
    assert.equal(attached.body.agent_id, agentId);
    assert.equal(attached.body.display_name, 'Help desk', 'what is not given stays');
    assert.deepEqual((await a.call('GET', `/v1/email_addresses/${id}`)).body, attached.body);
    // An empty update changes nothing and answers the address as it is.
    const unchanged = await a.call('POST', `/v1/email_addresses/${id}`, {});
    assert.equal(unchanged.status, 200);
    assert.deepEqual(unchanged.body, attached.body);
    const list = await a.call('GET', '/v1/email_addresses');
    assert.deepEqual(list.body.data.map((e: any) => e.id), [id]);
    assert.deepEqual((await a.live('GET', '/v1/email_addresses')).body.data, [], 'the live key sees no test address');
    assert.equal((await a.live('GET', `/v1/email_addresses/${id}`)).status, 404);

    // Test keys claim nothing (issue 28 #8): another account's test key may use the domain, even the address.
    const other = await account();
    assert.equal((await other.call('POST', '/v1/email_addresses', { address: `sales@${domain}` })).status, 201);
    assert.equal((await other.call('POST', '/v1/email_addresses', { address: `help@${domain}` })).status, 201);
    // A live address needs the domain proven by the account (email_domains); none is here.
    const ownLive = await a.live('POST', '/v1/email_addresses', { address: `sales@${domain}` });
    assert.equal(ownLive.status, 422);
    assert.deepEqual([ownLive.body.error.code, ownLive.body.error.param], ['domain_not_verified', 'address']);

    const deleted = await a.call('DELETE', `/v1/email_addresses/${id}`);
    assert.deepEqual(deleted.body, { id, object: 'email_address', deleted: true });
    assert.equal((await a.call('GET', `/v1/email_addresses/${id}`)).status, 404);
    assert.equal((await a.call('DELETE', `/v1/email_addresses/${id}`)).status, 404);
  });
});

describe('calls', () => {
  it('lists and retrieves calls with status, direction, numbers, duration, conversation and recording once ready', async () => {
    const a = await account();
    const pn = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId: a.accountId, livemode: false, number: fictionalNumber() });
    await a.call('POST', `/v1/phone_numbers/${pn.id}`, { voice_call_flow: { actions: [{ action: 'say', text: 'We are closed.' }], record: true } });
    const first = await a.call('POST', '/v1/test_helpers/calls', { from: '+14155550142', to: pn.number });
    const second = await a.call('POST', '/v1/test_helpers/calls', { from: '+14155550143', to: pn.number });
    assert.equal(first.status, 201);
    const id = first.body.call.id;
    assert.match(id, /^CA[0-9a-f]{32}$/);
    assert.equal(first.body.call.recording, null, 'no recording before it is ready');

    await ctx.stack.services.voiceCalls.recordRecording({ CallSid: id, RecordingSid: 'RE0123', RecordingUrl: 'https://api.twilio.com/recordings/RE0123', RecordingStatus: 'completed', RecordingDuration: 31 });
    await a.call('POST', `/v1/test_helpers/calls/${id}/hangup`, { duration_seconds: 33 });
    const read = await a.call('GET', `/v1/calls/${id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.object, 'call');
    assert.equal(read.body.direction, 'inbound');
    assert.equal(read.body.from, '+14155550142');
    assert.equal(read.body.to, pn.number);
    assert.equal(read.body.status, 'completed');
    assert.equal(read.body.duration_seconds, 33);
    assert.equal(read.body.conversation_id, null, 'no agent took it');
    assert.deepEqual(read.body.recording, { sid: 'RE0123', url: 'https://api.twilio.com/recordings/RE0123', duration_seconds: 31 });

    const list = await a.call('GET', `/v1/calls?phone_number_id=${pn.id}`);
    assert.deepEqual(list.body.data.map((c: any) => c.id), [second.body.call.id, id], 'newest first');
    assert.deepEqual((await a.call('GET', '/v1/calls?status=completed')).body.data.map((c: any) => c.id), [id]);
    assert.equal((await a.call('GET', '/v1/calls?status=ended')).status, 400);
    assert.deepEqual((await a.live('GET', '/v1/calls')).body.data, []);
    assert.equal((await a.live('GET', `/v1/calls/${id}`)).status, 404);
    const stranger = await account();
    assert.equal((await stranger.call('GET', `/v1/calls/${id}`)).status, 404);
  });

  it('are in the OpenAPI document with the email addresses, the number update and the test helpers', async () => {
    const doc = (await fetch(`${ctx.stack.baseUrl}/v1/openapi.json`).then((r) => r.json())) as any;
    for (const [path, method] of [
      ['/v1/calls', 'get'], ['/v1/calls/{id}', 'get'], ['/v1/email_addresses', 'post'], ['/v1/email_addresses', 'get'],
      ['/v1/email_addresses/{id}', 'post'], ['/v1/email_addresses/{id}', 'delete'], ['/v1/phone_numbers/{id}', 'post'],
      ['/v1/test_helpers/inbound_messages', 'post'], ['/v1/test_helpers/inbound_emails', 'post'], ['/v1/test_helpers/calls', 'post'],
      ['/v1/test_helpers/calls/{id}/speech', 'post'], ['/v1/test_helpers/messages/{id}/receipt', 'post'],
    ]) {
      assert.ok(doc.paths[path]?.[method], `${method} ${path}`);
    }
    assert.ok(doc.components.schemas.Agent.properties.tool_definitions);
  });
});
