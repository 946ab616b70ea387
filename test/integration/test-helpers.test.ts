import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import twilio from 'twilio';
import { OPT_OUT_REPLY } from '../../src/sms/consent-keywords';
import { SANDBOX_MAGIC_NUMBERS } from '../../src/sms/carriers/sandbox.carrier';
import { createCarrierRouter } from '../../src/sms/carrier-registry';
import { silentLogger } from '../../src/observability/logger';
import { VOICE_WEBHOOK_PATHS } from '../../src/channels/voice/voice-calls.service';
import { seedAgent, type AgentFixture } from '../support/agents';
import { buildTestConfig } from '../support/config';
import { apiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';
import { fictionalNumber } from '../support/twilio-voice';
import { waitForSource } from './knowledge-helpers';

/**
 * Test helpers drive each channel end to end without a carrier, a mail relay or a voice provider: a test
 * SMS reaches the agent and its reply leaves over the sandbox carrier, a test email is answered in its
 * conversation, a test call's speech turn is answered with TwiML speaking the agent's reply, a receipt
 * moves a test message; a live key gets 404 as for a path that does not exist.
 */
const PUBLIC_BASE_URL = 'https://api.example.com';
const config = buildTestConfig();
const ctx = useTestStack({
  label: __filename,
  temporal: 'dev-server',
  config: { ...config, http: { ...config.http, publicBaseUrl: PUBLIC_BASE_URL } },
  smsCarriers: createCarrierRouter(config, silentLogger()),
});

const TRANSFER_TO = '+14155550199';

async function channelAgent(): Promise<AgentFixture & { number: string; numberId: string }> {
  const f = await seedAgent(ctx.stack, { channels: ['chat', 'sms', 'email', 'voice'] });
  const number = fictionalNumber();
  const pn = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId: f.accountId, livemode: false, number });
  const attached = await f.call('POST', `/v1/phone_numbers/${pn.id}`, {
    agent_id: f.agentId,
    voice_call_flow: { actions: [{ action: 'connect_agent', agent_id: f.agentId, transfer_to: TRANSFER_TO }] },
  });
  assert.equal(attached.status, 200, JSON.stringify(attached.body));
  return { ...f, number, numberId: pn.id };
}

describe('test helpers (test mode)', () => {
  it('a test SMS to a number with an agent gets the agent\'s reply over the sandbox carrier, delivered', async () => {
    const f = await channelAgent();
    const customer = '+447400123456';
    const sent = await f.call('POST', '/v1/test_helpers/inbound_messages', { from: customer, to: f.number, body: 'How long does standard shipping take?' });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    assert.equal(sent.body.direction, 'inbound');
    assert.equal(sent.body.status, 'received');
    assert.equal(sent.body.from, customer);

    const reply = await pollUntil('the agent reply to be delivered over the sandbox', async () => {
      const list = await f.call('GET', `/v1/messages?direction=outbound&to=${encodeURIComponent(customer)}`);
      const m = list.body.data[0];
      return m?.status === 'delivered' && m;
    });
    assert.equal(reply.from, f.number);
    assert.equal(reply.carrier, 'sandbox');
    assert.match(reply.body, /3 to 5 business days/);
    const conversations = await f.call('GET', '/v1/conversations');
    const mine = conversations.body.data.filter((c: any) => c.customer.phone === customer);
    assert.equal(mine.length, 1);
    assert.equal(mine[0].channel, 'sms');
  });

  it('a test STOP is a consent keyword: answered with the opt-out notice, and no run', async () => {
    const f = await channelAgent();
    const customer = '+447400123457';
    const stop = await f.call('POST', '/v1/test_helpers/inbound_messages', { from: customer, to: f.number, body: 'STOP' });
    assert.equal(stop.status, 201);
    const notice = await pollUntil('the opt-out notice', async () => {
      const list = await f.call('GET', `/v1/messages?direction=outbound&to=${encodeURIComponent(customer)}`);
      return list.body.data[0];
    });
    assert.equal(notice.body, OPT_OUT_REPLY);
    assert.equal((await f.call('GET', '/v1/conversations')).body.data.length, 0);
  });

  it('a receipt moves a test message the sandbox took; a message no carrier holds is 409', async () => {
    const f = await channelAgent();
    const sent = await f.call('POST', '/v1/messages', { to: SANDBOX_MAGIC_NUMBERS.noReceipt, from: f.number, body: 'Your parcel is on its way' });
    assert.equal(sent.status, 201);
    await pollUntil('the message to be sent', async () => (await f.call('GET', `/v1/messages/${sent.body.id}`)).body.status === 'sent');
    const receipt = await f.call('POST', `/v1/test_helpers/messages/${sent.body.id}/receipt`, { status: 'undelivered', carrier_error_code: '001' });
    assert.equal(receipt.status, 200, JSON.stringify(receipt.body));
    const final = await pollUntil('the message to be undelivered', async () => {
      const m = (await f.call('GET', `/v1/messages/${sent.body.id}`)).body;
      return m.status === 'undelivered' && m;
    });
    assert.ok(final.error_code);
    const again = await f.call('POST', `/v1/test_helpers/messages/${sent.body.id}/receipt`, { status: 'delivered' });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'resource_conflict');
    const bad = await f.call('POST', `/v1/test_helpers/messages/${sent.body.id}/receipt`, { status: 'lost' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'status');
  });

  it('a structured test email to an address with an agent is answered in its conversation; raw works too; an unknown address is 404', async () => {
    const f = await channelAgent();
    const address = await f.call('POST', '/v1/email_addresses', { address: `help-${f.accountId.slice(-8).toLowerCase()}@support.example.com`, agent_id: f.agentId });
    assert.equal(address.status, 201, JSON.stringify(address.body));
    const received = await f.call('POST', '/v1/test_helpers/inbound_emails', {
      from: 'ada@example.org', from_name: 'Ada', to: address.body.address, subject: 'Shipping', text: 'How long does standard shipping take?',
    });
    assert.equal(received.status, 200, JSON.stringify(received.body));
    assert.equal(received.body.status, 'accepted');
    let seen: any[] = [];
    const transcript = await pollUntil('the agent email reply in the transcript', async () => {
      seen = (await f.call('GET', `/v1/conversations/${received.body.conversation_id}/messages`)).body.data;
      return seen.length === 2 && seen;
    }, { detail: () => JSON.stringify(seen) });
    assert.equal(transcript[1].role, 'agent');
    assert.match(transcript[1].content, /3 to 5 business days/);

    const raw = [`From: Bob <bob@example.org>`, `To: ${address.body.address}`, 'Subject: Password', 'Message-ID: <raw-1@example.org>', '', 'How do I reset my password?', ''].join('\r\n');
    const viaRaw = await f.call('POST', '/v1/test_helpers/inbound_emails', { raw });
    assert.equal(viaRaw.body.status, 'accepted');
    const replay = await f.call('POST', '/v1/test_helpers/inbound_emails', { raw });
    assert.equal(replay.body.status, 'duplicate', 'the same Message-ID is received once');

    const unknown = await f.call('POST', '/v1/test_helpers/inbound_emails', { from: 'ada@example.org', to: 'nobody@support.example.com', text: 'Hello' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.param, 'to');
    const other = await ctx.stack.newAccount();
    const foreign = await apiClient(ctx.stack.baseUrl, other.apiKey)('POST', '/v1/test_helpers/inbound_emails', { from: 'ada@example.org', to: address.body.address, text: 'Hello' });
    assert.deepEqual([foreign.status, foreign.body.error.param], [404, 'to'], 'another account\'s address is not found');
    const addresses = ctx.stack.services.emailAddresses;
    assert.equal((await addresses.findAccountAddress({ accountId: f.accountId, livemode: false, address: address.body.address.toUpperCase() }))?.id, address.body.id, 'found whatever its case');
    assert.equal(await addresses.findAccountAddress({ accountId: f.accountId, livemode: true, address: address.body.address }), undefined, 'not in the other mode');
    const both = await f.call('POST', '/v1/test_helpers/inbound_emails', { raw, text: 'Hello' });
    assert.equal(both.status, 400);
    const neither = await f.call('POST', '/v1/test_helpers/inbound_emails', { from: 'ada@example.org', to: address.body.address });
    assert.equal(neither.status, 400);
    const empty = await f.call('POST', '/v1/test_helpers/inbound_emails', {});
    assert.equal(empty.status, 400, 'an empty body is neither form');
    // Each names what is wrong with the form the body came nearest to.
    assert.deepEqual([both.body.error.code, both.body.error.param], ['parameter_unknown', 'text']);
    assert.deepEqual([neither.body.error.code, neither.body.error.param], ['parameter_missing', 'text']);
    assert.deepEqual([empty.body.error.code, empty.body.error.param], ['parameter_missing', 'raw']);
  });

  it('a test call is answered by its call flow, a speech turn gets TwiML speaking the answer, hanging up completes it', async () => {
    const f = await channelAgent();
    const caller = '+14155550142';
    const placed = await f.call('POST', '/v1/test_helpers/calls', { from: caller, to: f.number });
    assert.equal(placed.status, 201, JSON.stringify(placed.body));
    assert.equal(placed.body.call.status, 'in-progress');
    assert.equal(placed.body.call.from, caller);
    const listen = new twilio.twiml.VoiceResponse();
    listen.gather({ input: ['speech'], action: `${PUBLIC_BASE_URL}${VOICE_WEBHOOK_PATHS.speech}`, method: 'POST', speechTimeout: 'auto', actionOnEmptyResult: true, language: 'en-US' }).say({ language: 'en-US' }, 'How can I help you?');
    assert.equal(placed.body.twiml, listen.toString());

    const callId = placed.body.call.id;
    const turn = await f.call('POST', `/v1/test_helpers/calls/${callId}/speech`, { speech: 'How long does standard shipping take?' });
    assert.equal(turn.status, 200, JSON.stringify(turn.body));
    assert.match(turn.body.twiml, /<Gather[^>]*>.*3 to 5 business days.*<\/Gather>/s);
    assert.ok(turn.body.call.conversation_id);

    const hung = await f.call('POST', `/v1/test_helpers/calls/${callId}/hangup`, { duration_seconds: 42 });
    assert.equal(hung.status, 200);
    assert.equal(hung.body.status, 'completed');
    assert.equal(hung.body.duration_seconds, 42);
    const read = await f.call('GET', `/v1/calls/${callId}`);
    assert.deepEqual(read.body, hung.body);

    const otherNumber = await f.call('POST', '/v1/test_helpers/calls', { from: caller, to: '+14155550000' });
    assert.equal(otherNumber.status, 404);
    assert.equal(otherNumber.body.error.param, 'to');
  });

  it('a live key gets 404 route_missing on every test helper, before its body is read', async () => {
    const f = await channelAgent();
    const { secret } = await ctx.stack.services.accounts.createApiKey({ accountId: f.accountId, mode: 'live' });
    const live = apiClient(ctx.stack.baseUrl, secret);
    for (const [path, body] of [
      ['/v1/test_helpers/inbound_messages', { from: '+447400123458', to: f.number, body: 'Hi' }],
      ['/v1/test_helpers/inbound_emails', { raw: 'not checked' }],
      ['/v1/test_helpers/calls', {}],
      ['/v1/test_helpers/calls/CA0/speech', { speech: 'hello' }],
      ['/v1/test_helpers/messages/msg_x/receipt', { status: 'delivered' }],
    ] as const) {
      const res = await live('POST', path, body);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, 'route_missing', path);
      assert.equal(res.body.error.message, `Unrecognized request URL (POST: ${path})`);
    }
    const unknown = await live('POST', '/v1/no_such_thing', {});
    assert.equal(unknown.body.error.type, 'not_found_error');
    assert.equal((await f.call('GET', '/v1/messages?direction=inbound')).body.data.length, 0, 'nothing was received');
  });

  it('an SMS reply citing an uploaded document carries a link to the passage\'s page, revoked with the source', async () => {
    const f = await channelAgent();
    const markdown = '# Returns handbook\n\n## Damaged items\n\nA damaged item is replaced free of charge within 30 days when you send us a photo of the damage.\n';
    const form = new FormData();
    form.append('file', new Blob([markdown], { type: 'text/markdown' }), 'returns.md');
    const file = (await (await fetch(`${ctx.stack.baseUrl}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${f.apiKey}` }, body: form })).json()) as any;
    const src = await f.call('POST', `/v1/knowledge_bases/${f.knowledgeBaseId}/sources`, { type: 'document', file_id: file.id, refresh: 'manual' });
    assert.equal(src.status, 202, JSON.stringify(src.body));
    await waitForSource(f.call, f.knowledgeBaseId, src.body.id, 'ready');

    const customer = '+447400123459';
    await f.call('POST', '/v1/test_helpers/inbound_messages', { from: customer, to: f.number, body: 'Is a damaged item replaced free of charge?' });
    const reply = await pollUntil('the agent reply citing the document', async () => {
      const m = (await f.call('GET', `/v1/messages?direction=outbound&to=${encodeURIComponent(customer)}`)).body.data[0];
      return m && m;
    });
    const short = /https?:\/\/\S+\/l\/[0-9A-Za-z]{10}/.exec(reply.body)?.[0];
    assert.ok(short, `a short link in: ${reply.body}`);
    const code = short.split('/l/')[1];
    const hop = await fetch(`${ctx.stack.baseUrl}/l/${code}`, { redirect: 'manual' });
    assert.equal(hop.status, 302);
    const page = hop.headers.get('location')!;
    assert.match(page, new RegExp(`^${PUBLIC_BASE_URL}/c/[A-Za-z0-9_-]{32}$`));
    const path = new URL(page).pathname;

    const run = (await f.call('GET', '/v1/conversations')).body.data.find((c: any) => c.customer.phone === customer);
    const transcript = (await f.call('GET', `/v1/conversations/${run.id}/messages`)).body.data;
    const runObject = (await f.call('GET', `/v1/runs/${transcript[0].run_id}`)).body;
    const cited = runObject.retrieval.filter((r: any) => r.cited);
    assert.deepEqual(cited.map((r: any) => [r.source_id, r.url]), [[src.body.id, page]], 'the run shows the page as the cited url');

    const served = await fetch(`${ctx.stack.baseUrl}${path}`);
    assert.equal(served.status, 200);
    assert.match(served.headers.get('content-type') ?? '', /text\/html/);
    const text = await served.text();
    assert.match(text, /<h1>Returns handbook/);
    assert.match(text, /Damaged items/);
    assert.match(text, /replaced free of charge within 30 days/);
    assert.equal((await fetch(`${ctx.stack.baseUrl}/c/${'A'.repeat(32)}`)).status, 404, 'a token never issued');

    const deleted = await f.call('DELETE', `/v1/knowledge_bases/${f.knowledgeBaseId}/sources/${src.body.id}`);
    assert.equal(deleted.status, 200);
    const gone = await fetch(`${ctx.stack.baseUrl}${path}`);
    assert.equal(gone.status, 404, 'revoked with its source');
  });
});
