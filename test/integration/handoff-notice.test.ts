import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Config } from '../../src/config/env';
import { smsOfConversationMessage } from '../../src/channels/sms/sms-reply.channel';
import { handoffNoticeMessageId } from '../../src/runs/run-outcome';
import { ask, openConversation, seedAgent, type AgentFixture } from '../support/agents';
import { buildTestConfig } from '../support/config';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';

/**
 * The customer is told when a person takes over: a `system` message on the conversation's channel, per
 * agent and locale, another text outside the queue's business hours, delivered once, never an answer.
 */
const mailbox: ParsedMail[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    simpleParser(stream).then((mail) => {
      mailbox.push(mail);
      callback();
    }).catch(callback);
  },
});
const email: Config['email'] = {
  ...buildTestConfig().email,
  smtp: { host: '127.0.0.1', port: 0, secure: false, timeoutMs: 5000 },
  from: 'support@converse.test',
  messageIdDomain: 'converse.test',
  inboundSecret: `whsec_${randomBytes(18).toString('base64url')}`,
  inboundMaxBytes: 1_000_000,
  trackOpens: false,
  trackClicks: false,
};
before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  email.smtp!.port = (smtp.server.address() as AddressInfo).port;
});
after(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/** The service's clock (business hours are read at it); each test sets it. A Wednesday, 14:00 in Paris. */
let now = new Date('2026-12-02T13:00:00Z');
const ctx = useTestStack({ label: __filename, temporal: 'dev-server', config: { email }, clock: () => now });

const EN_DEFAULT = 'Thanks — a member of our team will reply here.';
/** Restricted topics hand off at once: a reliable handoff without depending on retrieval scores. */
const handsOffOnRefunds = { guardrails: { restricted_topics: ['refund'], restricted_topic_action: 'handoff' as const } };

async function messagesOf(f: AgentFixture, conversationId: string) {
  return (await f.call('GET', `/v1/conversations/${conversationId}/messages`)).body.data as any[];
}

let seq = 0;
const freshNumber = () => `+4474009${String(++seq).padStart(5, '0')}`;

describe('the handoff notice', () => {
  it('on chat: a system message in the default English text, not the run\'s reply; a later customer message flags the conversation unread and starts no run', async () => {
    now = new Date('2026-12-02T13:00:00Z');
    const f = await seedAgent(ctx.stack, handsOffOnRefunds);
    const cnv = await openConversation(f);
    const posted = await ask(f, cnv, 'I want a refund for my order');
    assert.equal(posted.run.status, 'completed');
    assert.equal(posted.run.reply, null, 'a handoff has no reply');
    assert.equal(posted.run.handoff.reason, 'restricted_topic');

    const messages = await messagesOf(f, cnv);
    assert.deepEqual(messages.map((m) => [m.role, m.content]), [['customer', 'I want a refund for my order'], ['system', EN_DEFAULT]]);
    assert.equal(messages[1].id, handoffNoticeMessageId(posted.run.id));
    assert.equal(messages[1].channel, 'chat');
    const conversation = (await f.call('GET', `/v1/conversations/${cnv}`)).body;
    assert.equal(conversation.status, 'handed_off');
    assert.equal(conversation.unread, true, 'a fresh handoff waits in the inbox unread');

    // A teammate opens it (console), then the customer writes again: stored at once, no run, unread again.
    await ctx.stack.services.conversations.markRead({ accountId: f.accountId, livemode: f.livemode, conversationId: cnv });
    assert.equal((await f.call('GET', `/v1/conversations/${cnv}`)).body.unread, false);
    const again = await ask(f, cnv, 'Hello? Anyone there?');
    assert.equal(again.run, undefined);
    assert.equal(again.run_id, null);
    assert.equal((await f.call('GET', `/v1/conversations/${cnv}`)).body.unread, true);
    assert.equal((await messagesOf(f, cnv)).filter((m) => m.role === 'system').length, 1, 'one notice per handoff');

    const events = await f.call('GET', '/v1/events?type=conversation.message');
    assert.ok(events.body.data.some((e: any) => e.data.role === 'system' && e.data.content === EN_DEFAULT), 'the notice is a conversation.message event like any turn');
  });

  it("uses the agent's own text for the customer's locale (fr-CA → fr), and the default in German for a German customer", async () => {
    now = new Date('2026-12-02T13:00:00Z');
    const f = await seedAgent(ctx.stack, { ...handsOffOnRefunds, locales: ['en', 'fr'], handoff: { notice: { en: 'One of us will answer here shortly.', fr: "L'un de nous vous répond ici très vite." } } });
    const fr = await openConversation(f, { customer: { locale: 'fr-CA' } });
    await ask(f, fr, 'Je veux un refund');
    assert.equal((await messagesOf(f, fr)).find((m) => m.role === 'system')?.content, "L'un de nous vous répond ici très vite.");

    const plain = await seedAgent(ctx.stack, handsOffOnRefunds);
    const de = await openConversation(plain, { customer: { locale: 'de-DE' } });
    await ask(plain, de, 'Ich möchte einen refund');
    assert.equal((await messagesOf(plain, de)).find((m) => m.role === 'system')?.content, 'Danke — jemand aus unserem Team antwortet Ihnen hier.');
  });

  it("outside the queue's business hours says when the team is back, in the queue's time zone, skipping a holiday", async () => {
    const f = await seedAgent(ctx.stack, { ...handsOffOnRefunds, handoff: { default_queue: 'billing', notice_after_hours: { fr: 'Nous sommes fermés ; retour {{back_at}}.' } } });
    const created = await f.call('POST', '/v1/queues', {
      name: 'billing',
      time_zone: 'Europe/Paris',
      weekly_hours: { mon: ['09:00-17:00'], tue: ['09:00-17:00'], wed: ['09:00-12:00', '13:00-17:00'], thu: ['09:00-17:00'], fri: ['09:00-17:00'] },
      holidays: ['2026-12-07'],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));

    // Saturday 5 December, 10:00 in Paris: closed; Monday the 7th is a holiday, so back Tuesday at 09:00.
    now = new Date('2026-12-05T09:00:00Z');
    const en = await openConversation(f);
    await ask(f, en, 'I need a refund');
    assert.equal((await messagesOf(f, en)).find((m) => m.role === 'system')?.content, "Thanks — our team is away right now; we're back Tuesday at 09:00 and will reply here.");
    const fr = await openConversation(f, { customer: { locale: 'fr' } });
    await ask(f, fr, 'Un refund, svp');
    assert.equal((await messagesOf(f, fr)).find((m) => m.role === 'system')?.content, 'Nous sommes fermés ; retour mardi à 09:00.');

    // Wednesday 12:30 in Paris (11:30 UTC): the lunch break, back at 13:00 the same day.
    now = new Date('2026-12-09T11:30:00Z');
    const lunch = await openConversation(f);
    await ask(f, lunch, 'refund please');
    assert.equal((await messagesOf(f, lunch)).find((m) => m.role === 'system')?.content, "Thanks — our team is away right now; we're back Wednesday at 13:00 and will reply here.");

    // Wednesday 15:00 in Paris: open, the ordinary notice.
    now = new Date('2026-12-09T14:00:00Z');
    const open = await openConversation(f);
    await ask(f, open, 'refund please');
    assert.equal((await messagesOf(f, open)).find((m) => m.role === 'system')?.content, EN_DEFAULT);
  });

  it('on SMS: sent to the customer from the agent\'s number, once, even when its delivery step runs again', async () => {
    now = new Date('2026-12-02T13:00:00Z');
    const f = await seedAgent(ctx.stack, handsOffOnRefunds);
    const number = freshNumber();
    const pn = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId: f.accountId, livemode: f.livemode, number });
    await ctx.stack.services.phoneNumbers.attachAgent({ accountId: f.accountId, livemode: f.livemode, phoneNumberId: pn.id, agentId: f.agentId });
    const customer = freshNumber();
    const cnv = await openConversation(f, { channel: 'sms', customer: { phone: customer } });
    const posted = await ask(f, cnv, 'I want a refund', '?wait_ms=20000');
    const noticeId = handoffNoticeMessageId(posted.run.id);
    const sent = await pollUntil('the notice SMS', async () => {
      const res = await f.call('GET', `/v1/messages?direction=outbound&to=${encodeURIComponent(customer)}`);
      return res.body.data.length > 0 && res.body.data;
    });
    assert.equal(sent.length, 1);
    // The handset gets a plain hyphen for the notice's dash: one GSM-7 segment, not UCS-2.
    assert.equal(sent[0].body, EN_DEFAULT.replace('—', '-'));
    assert.deepEqual([sent[0].encoding, sent[0].segments], ['GSM-7', 1]);
    assert.equal(sent[0].from, number);
    assert.equal(sent[0].id, smsOfConversationMessage(noticeId));

    // The activity retried (a worker lost after the send): still one SMS.
    await ctx.stack.services.runSteps.deliverHandoffNotice({ runId: posted.run.id });
    await ctx.stack.services.runSteps.deliverHandoffNotice({ runId: posted.run.id });
    const after = await f.call('GET', `/v1/messages?direction=outbound&to=${encodeURIComponent(customer)}`);
    assert.equal(after.body.data.length, 1);
  });

  it('on email: mailed to the customer in their language (the test-mode sandbox)', async () => {
    now = new Date('2026-12-02T13:00:00Z');
    const f = await seedAgent(ctx.stack, { ...handsOffOnRefunds, channels: ['chat', 'email'] });
    const to = `client-${randomBytes(4).toString('hex')}@example.com`;
    const cnv = await openConversation(f, { channel: 'email', customer: { email: to, locale: 'es' }, metadata: { subject: 'Mi pedido' } });
    await ask(f, cnv, 'Quiero un refund');
    // Test mode: the email goes to the sandbox (never the relay), read as the relay would have received it.
    const sent = await pollUntil('the notice email', async () => {
      const list = (await f.call('GET', `/v1/emails?direction=outbound&conversation_id=${cnv}`)).body.data as { id: string; to: string; status: string }[];
      return list.find((e) => e.to === to && e.status === 'delivered');
    });
    const mail = (await f.call('GET', `/v1/emails/${sent.id}`)).body;
    assert.match(mail.content.text ?? '', /Gracias — una persona de nuestro equipo te responderá aquí\./);
    assert.equal(mailbox.length, 0, 'test mode never reaches the relay');
  });

  it('is not an answer in an evaluation: a case expecting a reply fails on a handoff, though the test conversation holds the notice', async () => {
    now = new Date('2026-12-02T13:00:00Z');
    const f = await seedAgent(ctx.stack, handsOffOnRefunds);
    for (const [name, expect] of [['answers', { reply: { contains_one_of: ['member of our team'] } }], ['hands off', { handoff: { reasons: ['restricted_topic'] } }]] as const) {
      const res = await f.call('POST', `/v1/agents/${f.agentId}/test_cases`, { name, turns: [{ customer: 'I want a refund', expect }] });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const started = await f.call('POST', '/v1/evaluations', { agent_id: f.agentId });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const evaluation = await pollUntil('the evaluation to complete', async () => {
      const res = await f.call('GET', `/v1/evaluations/${started.body.id}`);
      return res.body.status === 'completed' && res.body;
    }, { timeoutMs: 60_000 });
    const answers = evaluation.cases.find((c: any) => c.name === 'answers');
    const handsOff = evaluation.cases.find((c: any) => c.name === 'hands off');
    assert.equal(handsOff.passed, true, JSON.stringify(handsOff.failures));
    assert.equal(answers.passed, false, 'the notice does not count as the reply');
    const run = (await f.call('GET', `/v1/runs/${answers.run_ids[0]}`)).body;
    assert.equal(run.reply, null);
    const notice = await ctx.stack.database.db.selectFrom('conversation_messages').select(['role', 'content']).where('id', '=', handoffNoticeMessageId(run.id)).executeTakeFirst();
    assert.deepEqual(notice, { role: 'system', content: EN_DEFAULT });
  });
});

describe('queues API', () => {
  it('refuses bad hours and time zones with the field named, another account\'s queue is not found, and a name is unique per account', async () => {
    const f = await seedAgent(ctx.stack);
    // 400 where the document states the rule; 422 where a schema-valid value breaks one it cannot state.
    const bad = [
      [{ name: 'x', time_zone: 'Mars/Olympus' }, 'time_zone', 422],
      [{ name: 'x', time_zone: 'UTC', weekly_hours: { mon: ['17:00-09:00'] } }, 'weekly_hours.mon.0', 422],
      [{ name: 'x', time_zone: 'UTC', weekly_hours: { mon: ['9am-5pm'] } }, 'weekly_hours.mon.0', 400],
      [{ name: 'x', time_zone: 'UTC', weekly_hours: { someday: ['09:00-17:00'] } }, 'weekly_hours.someday', 400],
      [{ name: 'x', time_zone: 'UTC', holidays: ['25/12/2026'] }, 'holidays.0', 400],
    ] as const;
    for (const [body, param, status] of bad) {
      const res = await f.call('POST', '/v1/queues', body);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.error.param, param, JSON.stringify(res.body));
    }
    assert.equal((await f.call('GET', '/v1/queues')).body.data.length, 0, 'nothing was created');
    const ok = await f.call('POST', '/v1/queues', { name: 'support', time_zone: 'America/New_York', weekly_hours: { mon: ['09:00-17:00'] }, holidays: ['2026-12-25', '2026-12-25'] });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.holidays, ['2026-12-25']);
    assert.equal((await f.call('POST', '/v1/queues', { name: 'support', time_zone: 'UTC' })).status, 409);
    const other = await seedAgent(ctx.stack);
    assert.equal((await other.call('GET', `/v1/queues/${ok.body.id}`)).status, 404);
    assert.equal((await other.call('POST', `/v1/queues/${ok.body.id}`, { time_zone: 'UTC' })).status, 404);
    assert.equal((await other.call('DELETE', `/v1/queues/${ok.body.id}`)).status, 404);
    const updated = await f.call('POST', `/v1/queues/${ok.body.id}`, { weekly_hours: null });
    assert.equal(updated.body.weekly_hours, null);
    assert.equal((await f.call('DELETE', `/v1/queues/${ok.body.id}`)).body.deleted, true);
  });
});
