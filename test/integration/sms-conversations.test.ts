import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { OPT_OUT_REPLY } from '../../src/sms/consent-keywords';
import { segmentSms } from '../../src/sms/segmenter';
import { SMS_REPLY_MAX_SEGMENTS } from '../../src/channels/sms/sms-reply-shaping';
import { smsOfConversationMessage } from '../../src/channels/sms/sms-reply.channel';
import { HELP_CENTER, ask, openConversation, seedAgent, type AgentFixture } from '../support/agents';
import { buildTestConfig } from '../support/config';
import { pollUntil } from '../support/poll';
import { SmscSimulator } from '../support/smsc-simulator';
import { startStackOverSmsc, type TestStack } from '../support/stack';
import { createDevServerEnv } from '../support/temporal';

/**
 * Agents over SMS end to end: a handset's message arrives as an SMPP deliver_sm from the local SMSC
 * simulator, the carrier hands it to inbound SMS, the conversation and its run follow, and the reply
 * leaves as submit_sm to the simulator (receipts, consent and pricing as for any SMS).
 */
let env: TestWorkflowEnvironment;
let stack: TestStack;
const smsc = new SmscSimulator();

before(async () => {
  env = await createDevServerEnv();
  stack = await startStackOverSmsc({
    label: __filename, env, smsc,
    carriersFor: (port) => [
      { name: 'smsc', type: 'smpp', host: '127.0.0.1', port, system_id: 'test', password: 'secret', prefixes: ['+'], priority: 1, max_mps: 1000, window: 20 },
    ],
    // Live replies carry short links only from a public address (without one they cite sources' own urls: public-links.test.ts).
    config: { http: { ...buildTestConfig().http, publicBaseUrl: 'https://sms.converse.example', publicBaseUrlIsLoopback: false } },
  });
});
after(async () => {
  await stack?.close();
  await smsc.stop();
  await env?.teardown();
});

let seq = 0;
/** A fresh valid UK mobile number per call. */
const freshNumber = () => `+4474001${String(++seq).padStart(5, '0')}`;
const digits = (n: string) => n.replace(/^\+/, '');

/** An agent (sms and chat) over `records`, with a number of its account that it answers (live mode: a real carrier). */
async function smsAgent(records = HELP_CENTER): Promise<AgentFixture & { number: string; numberId: string }> {
  const f = await seedAgent(stack, {}, records, 'live');
  const number = freshNumber();
  const pn = await stack.services.phoneNumbers.provisionPhoneNumber({ accountId: f.accountId, livemode: f.livemode, number });
  await stack.services.phoneNumbers.attachAgent({ accountId: f.accountId, livemode: f.livemode, phoneNumberId: pn.id, agentId: f.agentId });
  return { ...f, number, numberId: pn.id };
}

/** The handset `from` texts `to` (a deliver_sm the carrier acknowledges once inbound SMS stored it). */
async function text(from: string, to: string, body: string) {
  const statuses = await smsc.sendMo({ from, to, body });
  assert.deepEqual(statuses, statuses.map(() => 0), 'every part acknowledged ESME_ROK');
}

/** The account's outbound SMS to `to`, oldest first, once there are `count` of them in a final status. */
async function outboundTo(f: AgentFixture, to: string, count: number) {
  let seen: any[] = [];
  return pollUntil(`${count} SMS to ${to} to be delivered`, async () => {
    const res = await f.call('GET', `/v1/messages?direction=outbound&to=${encodeURIComponent(to)}`);
    seen = res.body.data;
    return seen.length === count && seen.every((m) => m.status === 'delivered') && [...seen].reverse();
  }, { detail: () => JSON.stringify(seen.map((m) => [m.body, m.status])) });
}

/** The transcript of the customer's only conversation, once it has `count` messages. */
async function transcriptOf(f: AgentFixture, customer: string, count: number) {
  let seen: any[] = [];
  return pollUntil(`the conversation of ${customer} to have ${count} messages`, async () => {
    const list = await f.call('GET', '/v1/conversations');
    const mine = list.body.data.filter((c: any) => c.customer.phone === customer);
    if (mine.length !== 1) return false;
    seen = (await f.call('GET', `/v1/conversations/${mine[0].id}/messages`)).body.data;
    return seen.length === count && { conversation: mine[0], messages: seen };
  }, { detail: () => JSON.stringify(seen.map((m) => [m.role, m.content])) });
}

const eventTypes = async (accountId: string) =>
  (await stack.database.db.selectFrom('events').select('type').where('account_id', '=', accountId).execute()).map((e) => e.type);

const submitsTo = (to: string) => smsc.submits.filter((s) => s.destination === digits(to));

describe('an inbound SMS to a number with an agent', () => {
  it('opens a conversation, runs the agent and replies by SMS with a short link that redirects and counts clicks', async () => {
    const f = await smsAgent();
    const numbers = await f.call('GET', '/v1/phone_numbers');
    assert.equal(numbers.body.data[0].agent_id, f.agentId);
    const customer = freshNumber();
    await text(customer, f.number, 'How long does standard shipping take?');

    const [sms] = await outboundTo(f, customer, 1);
    assert.equal(sms.from, f.number);
    assert.match(sms.body, /3 to 5 business days/);
    const link = sms.body.match(/(\S+)\/l\/([0-9A-Za-z]+)$/);
    assert.ok(link, sms.body);
    assert.equal(link[1], stack.config.http.publicBaseUrl);
    assert.equal(sms.segments, segmentSms(sms.body).segments);
    // What the handset got is what left through SMPP: one GSM-7 part from the agent's number.
    assert.deepEqual(submitsTo(customer).map((s) => [s.source, s.dataCoding, s.text]), [[digits(f.number), 0, sms.body]]);

    const { conversation, messages } = await transcriptOf(f, customer, 2);
    assert.equal(conversation.channel, 'sms');
    assert.equal(conversation.agent_id, f.agentId);
    assert.deepEqual(messages.map((m: any) => [m.role, m.channel]), [['customer', 'sms'], ['agent', 'sms']]);
    assert.equal(messages[0].content, 'How long does standard shipping take?');
    assert.equal(messages[1].content, sms.body, 'the transcript holds what was sent');
    assert.equal(sms.id, smsOfConversationMessage(messages[1].id));
    const run = (await f.call('GET', `/v1/runs/${messages[0].run_id}`)).body;
    assert.equal(run.status, 'completed');
    assert.equal(run.reply.content, sms.body);
    const types = await eventTypes(f.accountId);
    assert.ok(types.includes('message.received') && types.includes('run.completed'), types.join(','));

    const follow = () => fetch(`${stack.baseUrl}/l/${link[2]}`, { redirect: 'manual' });
    // A test-mode link to another site shows its destination first, never redirects (issue 28 #10).
    const first = await follow();
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('location'), null);
    assert.match(await first.text(), /href="https:\/\/help\.example\.com\/shipping"/);
    await follow();
    const stored = await stack.services.shortLinks.getShortLink({ code: link[2]! });
    assert.deepEqual([stored?.clicks, stored?.run_id, stored?.conversation_id], [2, run.id, conversation.id]);
    assert.equal((await fetch(`${stack.baseUrl}/l/0000000000`, { redirect: 'manual' })).status, 404);
  });

  it('posts a redelivered SMS (same carrier message id) once: one transcript message, one run', async () => {
    const f = await smsAgent();
    const customer = freshNumber();
    const inbound = { carrier: 'smsc', carrierMessageId: `mo-${customer}`, from: customer, to: f.number, body: 'How do I reset my password?', receivedAt: new Date() };
    await stack.services.inboundSms.onInbound(inbound);
    await stack.services.inboundSms.onInbound(inbound);
    await outboundTo(f, customer, 1);
    const { messages } = await transcriptOf(f, customer, 2);
    assert.deepEqual(messages.map((m: any) => m.role), ['customer', 'agent']);
    const runs = await stack.database.db.selectFrom('runs').select('id').where('account_id', '=', f.accountId).execute();
    assert.equal(runs.length, 1);
  });

  it('keeps a long answer within the segment budget, cut at a sentence', async () => {
    const warehouse = [
      'Returns go to our Łódź warehouse within 30 days of delivery.',
      'The Łódź warehouse accepts returns on weekdays between 8:00 and 16:00.',
      'Returns to the Łódź warehouse need the order number written on the parcel.',
      'The Łódź warehouse refunds returns within five business days of arrival.',
    ];
    const f = await smsAgent([{ title: 'Returns to the Łódź warehouse', content: warehouse.join(' '), url: 'https://help.example.com/returns' }]);
    const customer = freshNumber();
    await text(customer, f.number, 'How do returns to the Łódź warehouse work?');
    const [sms] = await outboundTo(f, customer, 1);
    const counted = segmentSms(sms.body);
    assert.equal(counted.encoding, 'UCS-2');
    assert.equal(sms.encoding, 'UCS-2');
    assert.equal(sms.segments, counted.segments);
    assert.ok(sms.segments <= SMS_REPLY_MAX_SEGMENTS, `${sms.segments} segments`);
    // Whole sentences of the passage, then the link: nothing cut mid-sentence.
    const [answer, link] = [sms.body.slice(0, sms.body.lastIndexOf(' ')), sms.body.slice(sms.body.lastIndexOf(' ') + 1)];
    assert.match(link, /\/l\/[0-9A-Za-z]{10}$/);
    const kept = warehouse.filter((s) => answer.includes(s));
    assert.ok(kept.length >= 1);
    assert.equal(answer, kept.join(' '));
    // The same question on chat (not shaped) gets more sentences: the SMS lost its last ones to the budget.
    const onChat = (await ask(f, await openConversation(f), 'How do returns to the Łódź warehouse work?')).run.reply.content as string;
    const chatKept = warehouse.filter((s) => onChat.includes(s));
    assert.ok(chatKept.length > kept.length, onChat);
    assert.deepEqual(kept, chatKept.slice(0, kept.length));
    assert.ok(segmentSms(`${answer} ${chatKept[kept.length]} ${link}`).segments > SMS_REPLY_MAX_SEGMENTS, 'the next sentence would not fit');
    // Every part went out as UCS-2, as many parts as segments counted (and charged).
    const parts = submitsTo(customer);
    assert.equal(parts.length, sms.segments);
    assert.ok(parts.every((p) => p.dataCoding === 8));
    assert.equal(parts.map((p) => p.text).join(''), sms.body);
  });

  it('counts a UCS-2 answer right: an emoji makes a 2-segment message that GSM-7 would send in one', async () => {
    const f = await smsAgent([{ title: 'Express shipping', content: 'Express shipping 🚚 arrives the next business day.', url: 'https://help.example.com/express' }]);
    const customer = freshNumber();
    await text(customer, f.number, 'When does express shipping arrive?');
    const [sms] = await outboundTo(f, customer, 1);
    assert.match(sms.body, /🚚/);
    assert.ok(sms.body.length <= 153 && [...sms.body].length > 70, `${sms.body.length} characters`);
    assert.deepEqual([sms.encoding, sms.segments], ['UCS-2', 2]);
    assert.equal(sms.price, (2 * Number(stack.config.messaging.prices.GB ?? stack.config.messaging.prices.default)).toFixed(4));
    const parts = submitsTo(customer);
    assert.deepEqual(parts.map((p) => p.dataCoding), [8, 8]);
    assert.equal(parts.map((p) => p.text).join(''), sms.body);
  });
});

describe('consent', () => {
  it('STOP opts the customer out: the confirmation goes, then the agent stays silent', async () => {
    const f = await smsAgent();
    const customer = freshNumber();
    await text(customer, f.number, 'How long does standard shipping take?');
    await outboundTo(f, customer, 1);
    await text(customer, f.number, 'STOP');
    const [, confirmation] = await outboundTo(f, customer, 2);
    assert.equal(confirmation.body, OPT_OUT_REPLY);

    await text(customer, f.number, 'How do I reset my password?');
    const { messages } = await transcriptOf(f, customer, 3);
    assert.deepEqual(messages.map((m: any) => m.role), ['customer', 'agent', 'customer']);
    assert.equal(messages[2].run_id, null, 'no run for an opted-out customer');
    const runs = await stack.database.db.selectFrom('runs').select('id').where('account_id', '=', f.accountId).execute();
    assert.equal(runs.length, 1);
    // STOP itself is a keyword: stored and emitted as message.received, never posted to the conversation.
    const received = await f.call('GET', '/v1/messages?direction=inbound');
    assert.deepEqual(received.body.data.map((m: any) => m.body), ['How do I reset my password?', 'STOP', 'How long does standard shipping take?']);
    assert.equal((await eventTypes(f.accountId)).filter((t) => t === 'message.received').length, 3);
    // A human reply to an opted-out customer is refused by consent like any SMS: failed, uncharged.
    const human = await f.call('POST', `/v1/conversations/${messages[0].conversation_id}/messages`, { role: 'human', content: 'Sam here, can I help?' });
    assert.equal(human.status, 201);
    assert.equal((await f.call('GET', `/v1/messages/${smsOfConversationMessage(human.body.id)}`)).status, 404, 'nothing created for an opted-out customer');
  });
});

describe('moving between channels', () => {
  it('continues a chat conversation by SMS from the customer phone: same thread, reply by SMS', async () => {
    const f = await smsAgent();
    const customer = freshNumber();
    const cnv = await openConversation(f, { customer: { name: 'Ada', phone: customer } });
    const chat = await ask(f, cnv, 'How long does standard shipping take?');
    assert.match(chat.run.reply.content, /3 to 5 business days/);
    // A desk reply on a chat conversation is only stored: no SMS.
    const desk = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'Anything else?' });
    assert.equal(desk.status, 201);
    assert.equal((await f.call('GET', `/v1/messages?to=${encodeURIComponent(customer)}`)).body.data.length, 0);

    await text(customer, f.number, 'How do I reset my password?');
    const [sms] = await outboundTo(f, customer, 1);
    assert.match(sms.body, /Settings/);
    const { conversation, messages } = await transcriptOf(f, customer, 5);
    assert.equal(conversation.id, cnv);
    assert.equal(conversation.channel, 'sms');
    assert.deepEqual(
      messages.map((m: any) => `${m.role}:${m.channel}`),
      ['customer:chat', 'agent:chat', 'human:chat', 'customer:sms', 'agent:sms'],
    );
    const run = (await f.call('GET', `/v1/runs/${messages[3].run_id}`)).body;
    assert.equal(run.conversation_id, cnv);
    // The run's planner reads the thread before its message (the same query the run step uses): the chat turns.
    const { seq } = await stack.database.db.selectFrom('conversation_messages').select('seq').where('id', '=', messages[3].id).executeTakeFirstOrThrow();
    const seen = await stack.services.conversations.conversationRepo.listTranscriptBefore(stack.database.db, cnv, seq, 10);
    assert.deepEqual(seen.map((t) => `${t.role}:${t.channel}`), ['customer:chat', 'agent:chat', 'human:chat']);
  });

  it('sends a human desk reply on an SMS conversation by SMS, once', async () => {
    const f = await smsAgent();
    const customer = freshNumber();
    await text(customer, f.number, 'How long does standard shipping take?');
    await outboundTo(f, customer, 1);
    const { conversation } = await transcriptOf(f, customer, 2);
    const human = await f.call('POST', `/v1/conversations/${conversation.id}/messages`, { role: 'human', content: 'Hi, Sam from Acme here. Your parcel left today.' });
    assert.equal(human.status, 201);
    assert.equal(human.body.channel, 'sms');
    const [, desk] = await outboundTo(f, customer, 2);
    assert.equal(desk.id, smsOfConversationMessage(human.body.id));
    assert.deepEqual([desk.from, desk.body], [f.number, 'Hi, Sam from Acme here. Your parcel left today.']);
    // Delivering the same message again (a retry) sends nothing more.
    const row = (await stack.services.conversations.conversationRepo.getConversationById(stack.database.db, { accountId: f.accountId, livemode: f.livemode }, conversation.id))!;
    await stack.services.replyChannels.deliverReply('sms', { conversation: row, message: human.body, runId: null });
    assert.equal((await outboundTo(f, customer, 2)).length, 2);
    assert.equal(submitsTo(customer).length, 2);
  });
});
