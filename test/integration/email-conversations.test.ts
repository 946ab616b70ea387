import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Config } from '../../src/config/env';
import { INBOUND_EMAIL_PATH } from '../../src/channels/email/email.routes';
import { signatureHeader } from '../../src/domain/signature';
import { seedAgent, type AgentFixture } from '../support/agents';
import { deliveryStatusReport } from '../support/delivery-status';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';
import { signInToConsole } from '../support/console';

const INBOUND_SECRET = `whsec_${randomBytes(18).toString('base64url')}`;

/**
 * Every email the local SMTP server accepted, parsed. RCPT TO an address starting with "reject" gets 550;
 * one starting with "busy" gets 451 (try again later) the first time.
 */
const mailbox: { envelopeFrom: string; envelopeTo: string[]; mail: ParsedMail }[] = [];
const rcptAttempts = new Map<string, number>();
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onRcptTo(address, _session, callback) {
    const attempt = (rcptAttempts.get(address.address) ?? 0) + 1;
    rcptAttempts.set(address.address, attempt);
    if (address.address.startsWith('busy') && attempt === 1) {
      return callback(Object.assign(new Error('4.3.0 Try again later'), { responseCode: 451 }));
    }
    if (address.address.startsWith('reject')) {
      const err = Object.assign(new Error('5.1.1 User unknown'), { responseCode: 550 });
      return callback(err);
    }
    callback();
  },
  onData(stream, session, callback) {
    simpleParser(stream)
      .then((mail) => {
        mailbox.push({ envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', envelopeTo: session.envelope.rcptTo.map((r) => r.address), mail });
        callback();
      })
      .catch(callback);
  },
});

// The SMTP server's port is known once it listens (before the stack starts: hooks run in order).
const email: Config['email'] = {
  smtp: { host: '127.0.0.1', port: 0, secure: false, timeoutMs: 5000 },
  from: 'agent@converse.test',
  messageIdDomain: 'converse.test',
  inboundSecret: INBOUND_SECRET,
  inboundMaxBytes: 1_000_000,
  trackOpens: true,
  trackClicks: true,
  dnsServers: [],
  dnsTimeoutMs: 2000,
  returnPathDomain: 'converse.test',
};
before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  email.smtp!.port = (smtp.server.address() as AddressInfo).port;
});
after(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const ctx = useTestStack({ label: __filename, temporal: 'dev-server', config: { email } });

const uid = () => randomBytes(6).toString('hex');

function mime(m: { from: string; to: string; subject: string; messageId: string; inReplyTo?: string; references?: string[]; text: string; headers?: Record<string, string> }): string {
  return [
    `From: Ada Lovelace <${m.from}>`,
    `To: ${m.to}`,
    `Subject: ${m.subject}`,
    `Message-ID: <${m.messageId}>`,
    ...(m.inReplyTo ? [`In-Reply-To: <${m.inReplyTo}>`] : []),
    ...(m.references ? [`References: ${m.references.map((r) => `<${r}>`).join(' ')}`] : []),
    ...Object.entries(m.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'Date: Mon, 23 Nov 2026 10:00:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    m.text,
    '',
  ].join('\r\n');
}

async function postInbound(raw: string, signature: string | null = signatureHeader(INBOUND_SECRET, raw)) {
  const res = await fetch(`${ctx.stack.baseUrl}${INBOUND_EMAIL_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'message/rfc822', ...(signature ? { 'service-signature': signature } : {}) },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** The email the SMTP server got for `to` whose subject and headers satisfy `match`. */
const mailTo = (to: string, match: (m: ParsedMail) => boolean = () => true) =>
  pollUntil(`an email to ${to}`, () => mailbox.find((e) => e.envelopeTo.includes(to) && match(e.mail))?.mail, { detail: () => `${mailbox.length} emails received` });

const mailsTo = (to: string) => mailbox.filter((e) => e.envelopeTo.includes(to)).map((e) => e.mail);

const stripBrackets = (id: string | undefined) => (id ?? '').replace(/^<|>$/g, '');
const referencesOf = (m: ParsedMail) => (Array.isArray(m.references) ? m.references : m.references ? [m.references] : []).map(stripBrackets);

/** Events of a type for the fixture's account, newest first. */
async function eventsOf(f: AgentFixture, type: string) {
  const res = await f.call('GET', `/v1/events?type=${type}&limit=100`);
  assert.equal(res.status, 200);
  return res.body.data as any[];
}

const eventFor = (f: AgentFixture, type: string, match: (e: any) => boolean) =>
  pollUntil(`a ${type} event`, async () => (await eventsOf(f, type)).find(match));

/**
 * A live email agent over the help center, answering at support-…@acme.test (test mode never reaches the
 * relay). The account's acme.test is marked verified directly: the DNS proof has its own test
 * (email-trust-boundaries.test.ts).
 */
async function seedEmailAgent() {
  const f = await seedAgent(ctx.stack, { channels: ['chat', 'email'] }, undefined, 'live');
  const domain = await ctx.stack.services.emailDomains.addDomain({ accountId: f.accountId, livemode: true, domain: 'acme.test' });
  await ctx.stack.database.db.updateTable('email_domains').set({ verified_at: new Date() }).where('id', '=', domain.id).execute();
  const address = `support-${uid()}@acme.test`;
  await ctx.stack.services.emailAddresses.addAddress({ accountId: f.accountId, livemode: true, address, displayName: 'Acme Support', agentId: f.agentId });
  return { ...f, address };
}

/** The envelope sender (return path) of the email the relay got with this Message-ID. */
const returnPathOf = (messageId: string | undefined) => mailbox.find((e) => e.mail.messageId === messageId)?.envelopeFrom ?? '';

describe('email conversations', () => {
  it('answers an inbound email with a threaded reply (In-Reply-To, References, "Re:" subject, quote, source link), and a reply in the thread continues the conversation', async () => {
    const f = await seedEmailAgent();
    const customer = `ada-${uid()}@customer.test`;
    const first = `c1-${uid()}@customer.test`;
    const res = await postInbound(mime({ from: customer, to: f.address, subject: 'Shipping question', messageId: first, text: 'How long does standard shipping take?' }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'accepted');
    const cnv = res.body.conversation_id as string;
    assert.match(cnv, /^cnv_/);

    const reply = await mailTo(customer);
    assert.equal(reply.subject, 'Re: Shipping question');
    assert.equal(stripBrackets(reply.inReplyTo), first);
    assert.deepEqual(referencesOf(reply), [first]);
    assert.equal(reply.from?.value[0]?.address, f.address);
    assert.equal(reply.from?.value[0]?.name, 'Acme Support');
    assert.equal(reply.headers.get('auto-submitted'), 'auto-replied');
    assert.match(reply.text ?? '', /3 to 5 business days/);
    assert.match(reply.text ?? '', /^> How long does standard shipping take\?$/m, 'a short quote of the customer message');
    assert.match(String(reply.html), /<a href="[^"]*\/e\/c\/[^"]+">https:\/\/help\.example\.com\/shipping<\/a>/, 'the cited source, linked through the click redirect');
    assert.match(String(reply.html), /<img src="[^"]*\/e\/o\/[^"]+\.gif"/, 'the open pixel');

    const conversation = await f.call('GET', `/v1/conversations/${cnv}`);
    assert.equal(conversation.body.channel, 'email');
    assert.equal(conversation.body.customer.email, customer);
    const transcript = await f.call('GET', `/v1/conversations/${cnv}/messages`);
    assert.deepEqual(transcript.body.data.map((m: any) => `${m.role}:${m.channel}`), ['customer:email', 'agent:email']);
    assert.match(transcript.body.data[1].content, /Source: Shipping times: https:\/\/help\.example\.com\/shipping$/);
    const delivered = await eventFor(f, 'email.delivered', (e) => e.data.conversation_id === cnv);
    assert.equal(delivered.data.status, 'delivered');
    assert.equal(delivered.data.to, customer);
    assert.equal(delivered.data.smtp_message_id, reply.messageId);
    assert.equal(delivered.data.message_id, transcript.body.data[1].id);

    // The customer answers our reply (their client quotes it): same conversation, the reply threads under it.
    const second = `c2-${uid()}@customer.test`;
    const quoted = (reply.text ?? '').split('\n').map((l) => `> ${l}`).join('\r\n');
    const followUp = await postInbound(
      mime({
        from: customer,
        to: f.address,
        subject: 'Re: Shipping question',
        messageId: second,
        inReplyTo: stripBrackets(reply.messageId),
        references: [first, stripBrackets(reply.messageId)],
        text: `Thanks! And how do I reset my password?\r\n\r\nOn Mon, 23 Nov 2026 at 10:01, Acme Support <${f.address}> wrote:\r\n${quoted}`,
      }),
    );
    assert.equal(followUp.body.status, 'accepted');
    assert.equal(followUp.body.conversation_id, cnv);
    const secondReply = await mailTo(customer, (m) => stripBrackets(m.inReplyTo) === second);
    assert.equal(secondReply.subject, 'Re: Shipping question');
    assert.deepEqual(referencesOf(secondReply), [first, stripBrackets(reply.messageId), second]);
    assert.match(secondReply.text ?? '', /Settings/);
    const after = await f.call('GET', `/v1/conversations/${cnv}/messages`);
    assert.deepEqual(after.body.data.map((m: any) => m.role), ['customer', 'agent', 'customer', 'agent']);
    assert.equal(after.body.data[2].content, 'Thanks! And how do I reset my password?', 'only the new text, not the quoted history');

    // Retrieval ran against the whole thread: the earlier shipping question's passage was retrieved too.
    const run = await f.call('GET', `/v1/runs/${after.body.data[2].run_id}`);
    const titles = run.body.retrieval.map((r: any) => r.title);
    assert.equal(titles[0], 'Password reset');
    assert.ok(titles.includes('Shipping times'), JSON.stringify(titles));

    // The same email posted again (a relay retry) is acknowledged once.
    const again = await postInbound(mime({ from: customer, to: f.address, subject: 'Shipping question', messageId: first, text: 'How long does standard shipping take?' }));
    assert.equal(again.body.status, 'duplicate');
    assert.equal(again.body.conversation_id, cnv);
    assert.equal((await f.call('GET', `/v1/conversations/${cnv}/messages`)).body.data.length, 4);
  });

  it('matches a thread by subject when the headers are gone, ahead of a newer open conversation of the customer; another sender quoting the thread does not join it', async () => {
    const f = await seedEmailAgent();
    const customer = `bob-${uid()}@customer.test`;
    const res = await postInbound(mime({ from: customer, to: f.address, subject: 'Refund for order 1234', messageId: `r1-${uid()}@customer.test`, text: 'When are refunds issued?' }));
    const cnv = res.body.conversation_id;
    const chat = await f.call('POST', '/v1/conversations', { agent_id: f.agentId, customer: { email: customer } });
    assert.equal(chat.status, 201);
    const ours = await mailTo(customer);

    // Someone else quoting the thread's Message-IDs (a CC, a forward) does not join the customer's conversation.
    const stranger = `mallory-${uid()}@other.test`;
    const quoting = await postInbound(
      mime({ from: stranger, to: f.address, subject: 'Re: Refund for order 1234', messageId: `x-${uid()}@other.test`, inReplyTo: stripBrackets(ours.messageId), text: 'What did they ask?' }),
    );
    assert.equal(quoting.body.status, 'accepted');
    assert.notEqual(quoting.body.conversation_id, cnv);
    assert.notEqual(quoting.body.conversation_id, chat.body.id);

    const noHeaders = await postInbound(mime({ from: customer.toUpperCase(), to: f.address, subject: 'RE: Fwd: refund for order 1234', messageId: `r2-${uid()}@customer.test`, text: 'Is that 14 days?' }));
    assert.equal(noHeaders.body.conversation_id, cnv);
  });

  it('continues the conversation of a customer who chatted with the same email, and answers by email', async () => {
    const f = await seedEmailAgent();
    const customer = `cleo-${uid()}@customer.test`;
    const chat = await f.call('POST', '/v1/conversations', { agent_id: f.agentId, customer: { email: customer, name: 'Cleo' } });
    const asked = await f.call('POST', `/v1/conversations/${chat.body.id}/messages`, { role: 'customer', content: 'How long does standard shipping take?' });
    assert.equal(asked.body.run.status, 'completed');

    const res = await postInbound(mime({ from: customer, to: f.address, subject: 'Password', messageId: `p1-${uid()}@customer.test`, text: 'How do I reset my password?' }));
    assert.equal(res.body.status, 'accepted');
    assert.equal(res.body.conversation_id, chat.body.id);
    const reply = await mailTo(customer);
    assert.equal(reply.subject, 'Re: Password');
    assert.match(reply.text ?? '', /Settings/);
    const transcript = await f.call('GET', `/v1/conversations/${chat.body.id}/messages`);
    assert.deepEqual(transcript.body.data.map((m: any) => `${m.role}:${m.channel}`), ['customer:chat', 'agent:chat', 'customer:email', 'agent:email']);
    assert.equal((await f.call('GET', `/v1/conversations/${chat.body.id}`)).body.channel, 'email');
  });

  it('records an SMTP rejection as email.bounced (no retry), and a delivery status notification as a bounce of a delivered email', async () => {
    const f = await seedEmailAgent();
    const rejected = `reject-${uid()}@customer.test`;
    const res = await postInbound(mime({ from: rejected, to: f.address, subject: 'Shipping', messageId: `b1-${uid()}@customer.test`, text: 'How long does standard shipping take?' }));
    const bounced = await eventFor(f, 'email.bounced', (e) => e.data.conversation_id === res.body.conversation_id);
    assert.equal(bounced.data.status, 'bounced');
    assert.equal(bounced.data.bounce.source, 'smtp');
    assert.equal(bounced.data.error.code, 'smtp_550');
    assert.equal(mailsTo(rejected).length, 0);

    const customer = `dan-${uid()}@customer.test`;
    const ok = await postInbound(mime({ from: customer, to: f.address, subject: 'Shipping', messageId: `b2-${uid()}@customer.test`, text: 'How long does standard shipping take?' }));
    const reply = await mailTo(customer);
    await eventFor(f, 'email.delivered', (e) => e.data.conversation_id === ok.body.conversation_id);
    // Bounces are accepted at the email's own return path (VERP) only.
    assert.match(returnPathOf(reply.messageId), /^bounces\+[0-9a-f]{24}@converse\.test$/);
    const dsn = deliveryStatusReport({
      to: returnPathOf(reply.messageId),
      recipient: customer,
      status: '5.2.1',
      diagnosticCode: 'smtp; 550 5.2.1 Mailbox disabled',
      explanation: 'Your message could not be delivered.',
      autoSubmitted: true,
      original: { messageId: reply.messageId!, from: f.address, to: customer },
    });
    const posted = await postInbound(dsn);
    assert.equal(posted.body.status, 'bounce', JSON.stringify(posted.body));
    const dsnBounce = await eventFor(f, 'email.bounced', (e) => e.data.conversation_id === ok.body.conversation_id);
    assert.equal(dsnBounce.data.bounce.source, 'dsn');
    assert.equal(dsnBounce.data.bounce.status, '5.2.1');
    assert.equal(dsnBounce.data.bounce.type, 'hard');
    assert.equal(dsnBounce.data.smtp_message_id, reply.messageId);
    // A DSN is never taken for a customer message.
    assert.equal((await f.call('GET', `/v1/conversations/${ok.body.conversation_id}/messages`)).body.data.length, 2);
  });

  it('retries a send the SMTP server defers (4xx) and delivers it once, with the same Message-ID', async () => {
    const f = await seedEmailAgent();
    const customer = `busy-${uid()}@customer.test`;
    const res = await postInbound(mime({ from: customer, to: f.address, subject: 'Shipping', messageId: `d1-${uid()}@customer.test`, text: 'How long does standard shipping take?' }));
    const reply = await mailTo(customer);
    assert.equal(rcptAttempts.get(customer), 2, 'deferred once, then accepted');
    const delivered = await eventFor(f, 'email.delivered', (e) => e.data.conversation_id === res.body.conversation_id);
    assert.equal(delivered.data.smtp_message_id, reply.messageId);
    assert.equal(mailsTo(customer).length, 1);
    assert.equal((await eventsOf(f, 'email.bounced')).length, 0);
  });

  it('records a feedback report (ARF) as email.complained, the open pixel as email.opened and a tracked link as email.clicked with a redirect', async () => {
    const f = await seedEmailAgent();
    const customer = `eve-${uid()}@customer.test`;
    const res = await postInbound(mime({ from: customer, to: f.address, subject: 'Refunds', messageId: `t1-${uid()}@customer.test`, text: 'When are refunds issued?' }));
    const reply = await mailTo(customer);
    const html = String(reply.html);
    // Links carry PUBLIC_BASE_URL; the test's API listens on an ephemeral port.
    const local = (href: string) => {
      const u = new URL(href.replace(/&amp;/g, '&'));
      return `${ctx.stack.baseUrl}${u.pathname}${u.search}`;
    };
    const pixel = local(/<img src="([^"]+)"/.exec(html)![1]!);
    const link = local(/<a href="([^"]+)">https:\/\/help\.example\.com\/refunds<\/a>/.exec(html)![1]!);
    assert.ok(pixel.includes('/e/o/') && link.includes('/e/c/'));

    for (let i = 0; i < 2; i++) {
      const open = await fetch(pixel);
      assert.equal(open.status, 200);
      assert.equal(open.headers.get('content-type'), 'image/gif');
    }
    const opened = await eventFor(f, 'email.opened', (e) => e.data.conversation_id === res.body.conversation_id);
    assert.ok(opened.data.opened_at);
    assert.equal((await eventsOf(f, 'email.opened')).length, 1, 'one email.opened however often the pixel loads');

    const click = await fetch(link, { redirect: 'manual' });
    assert.equal(click.status, 302);
    assert.equal(click.headers.get('location'), 'https://help.example.com/refunds');
    const clicked = await eventFor(f, 'email.clicked', (e) => e.data.conversation_id === res.body.conversation_id);
    assert.equal(clicked.data.url, 'https://help.example.com/refunds');

    // The token signs the destination: another URL (an open redirect) or a forged token is 404.
    const forged = await fetch(link.replace(/url=[^&]+/, `url=${encodeURIComponent('https://evil.example/')}`), { redirect: 'manual' });
    assert.equal(forged.status, 404);
    assert.equal(((await forged.json()) as any).error.type, 'not_found_error');
    assert.equal((await fetch(pixel.replace(/\.([A-Za-z0-9_-]+)\.gif$/, '.AAAA.gif'))).status, 404);

    const arf = [
      'From: Feedback Loop <fbl@isp.test>',
      `To: ${f.address}`,
      'Subject: Abuse report',
      `Message-ID: <arf-${uid()}@isp.test>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
      '',
      '--ARF',
      'Content-Type: text/plain',
      '',
      'This is an email abuse report.',
      '',
      '--ARF',
      'Content-Type: message/feedback-report',
      '',
      'Feedback-Type: abuse',
      'User-Agent: ISP-FBL/1.0',
      'Version: 1',
      '',
      '--ARF',
      'Content-Type: message/rfc822',
      '',
      `From: ${f.address}`,
      `To: ${customer}`,
      `Message-ID: ${reply.messageId}`,
      'Subject: Re: Refunds',
      '',
      'Refunds are issued within 14 days.',
      '--ARF--',
      '',
    ].join('\r\n');
    const posted = await postInbound(arf);
    assert.equal(posted.body.status, 'complaint');
    const complained = await eventFor(f, 'email.complained', (e) => e.data.conversation_id === res.body.conversation_id);
    assert.equal(complained.data.feedback_type, 'abuse');
    assert.ok(complained.data.complained_at);
  });

  it('sends a human desk reply on an email conversation once, threaded, without Auto-Submitted', async () => {
    const f = await seedEmailAgent();
    const customer = `fay-${uid()}@customer.test`;
    const first = `h1-${uid()}@customer.test`;
    const res = await postInbound(mime({ from: customer, to: f.address, subject: 'Warranty', messageId: first, text: 'Can I bring my parrot to the shareholder meeting?' }));
    const cnv = res.body.conversation_id;
    // Nothing in the help center answers: the run hands off and sends only the handoff notice.
    const conversation = await pollUntil('the handoff', async () => {
      const c = await f.call('GET', `/v1/conversations/${cnv}`);
      return c.body.status === 'handed_off' && c.body;
    });
    assert.equal(conversation.handoff.reason, 'no_supporting_source');
    const notice = await mailTo(customer, (m) => /a member of our team will reply here/.test(m.text ?? ''));
    assert.equal(notice.subject, 'Re: Warranty');
    assert.equal(notice.headers.get('auto-submitted'), 'auto-replied', 'the notice is automatic: vacation responders do not answer it');
    const human = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'Hi, this is Sam. Parrots are welcome!' });
    assert.equal(human.status, 201);

    const row = await ctx.stack.services.conversations.conversationRepo.getConversation(ctx.stack.database.db, cnv);
    for (let i = 0; i < 2; i++) await ctx.stack.services.replyChannels.deliverReply('email', { conversation: row!, message: human.body, runId: '' });
    const mail = await mailTo(customer, (m) => /Parrots are welcome!/.test(m.text ?? ''));
    assert.equal(mailsTo(customer).length, 2, 'the notice, then the reply delivered once however often it is asked');
    assert.equal(mail.subject, 'Re: Warranty');
    assert.equal(stripBrackets(mail.inReplyTo), first);
    assert.equal(mail.headers.get('auto-submitted'), undefined);
    assert.match(mail.text ?? '', /Parrots are welcome!/);
  });

  it('provisions inbound addresses like phone numbers: unique, valid, answered only by a live email agent', async () => {
    const f = await seedEmailAgent();
    const svc = ctx.stack.services.emailAddresses;
    await assert.rejects(svc.addAddress({ accountId: f.accountId, livemode: true, address: f.address.toUpperCase() }), (e: any) => e.code === 'resource_conflict');
    await assert.rejects(svc.addAddress({ accountId: f.accountId, livemode: true, address: 'not an address' }), (e: any) => e.code === 'parameter_invalid');
    const smsOnly = await ctx.stack.services.agents.createAgent({ accountId: f.accountId, livemode: true, config: { name: 'SMS only', channels: ['sms'] } });
    await ctx.stack.services.agents.publishAgent({ accountId: f.accountId, livemode: true, agentId: smsOnly.id });
    const [address] = await svc.listAddresses({ accountId: f.accountId, livemode: true });
    await assert.rejects(svc.attachAgent({ accountId: f.accountId, livemode: true, emailAddressId: address!.id, agentId: smsOnly.id }), (e: any) => e.code === 'channel_not_supported');
    const other = await ctx.stack.newAccount();
    await assert.rejects(svc.attachAgent({ accountId: other.accountId, livemode: true, emailAddressId: address!.id, agentId: null }), (e: any) => e.code === 'resource_missing');

    const detached = await svc.attachAgent({ accountId: f.accountId, livemode: true, emailAddressId: address!.id, agentId: null });
    assert.equal(detached.agent_id, null);
    // Detached: what arrives reaches the inbox for the team (below), no longer the agent.
    const res = await postInbound(mime({ from: `hal-${uid()}@customer.test`, to: f.address, subject: 'Hi', messageId: `a-${uid()}@customer.test`, text: 'Hello' }));
    assert.equal(res.body.status, 'accepted');
    assert.equal((await f.call('GET', `/v1/conversations/${res.body.conversation_id}`)).body.agent_id, null);
  });

  it('an address without an agent is a team inbox: the mail waits in the inbox, the team is emailed (at most once per 5 minutes), a console reply goes out by SMTP', async (t) => {
    await ctx.stack.services.conversationEvents.listen();
    ctx.stack.services.teamAlerts!.start();
    t.after(async () => {
      ctx.stack.services.teamAlerts!.stop();
      await ctx.stack.services.conversationEvents.close();
    });
    const f = await seedEmailAgent();
    const [address] = await ctx.stack.services.emailAddresses.listAddresses({ accountId: f.accountId, livemode: true });
    await ctx.stack.services.emailAddresses.attachAgent({ accountId: f.accountId, livemode: true, emailAddressId: address!.id, agentId: null });
    const lead = `lead-${uid()}@acme-team.test`;
    await ctx.stack.services.consoleSessions.createUser({ accountId: f.accountId, email: lead, password: 'correct horse battery' });
    const customer = `zoe-${uid()}@customer.test`;
    const first = `t1-${uid()}@customer.test`;
    const res = await postInbound(mime({ from: customer, to: f.address, subject: 'Invoice copy', messageId: first, text: 'Could you send me a copy of my invoice?' }));
    assert.equal(res.body.status, 'accepted', JSON.stringify(res.body));
    const cnv = (await f.call('GET', `/v1/conversations/${res.body.conversation_id}`)).body;
    assert.deepEqual([cnv.agent_id, cnv.status, cnv.channel, cnv.unread], [null, 'handed_off', 'email', true]);
    assert.equal((await ctx.stack.database.db.selectFrom('runs').select('id').where('conversation_id', '=', cnv.id).execute()).length, 0, 'no run');
    const handoff = await eventFor(f, 'conversation.handoff', (e) => e.data.id === cnv.id);
    assert.equal(handoff.data.run_id, null);

    // The team hears of it by email: automatic, linking to the conversation.
    const alert = await mailTo(lead);
    assert.equal(alert.headers.get('auto-submitted'), 'auto-generated');
    assert.match(alert.text ?? '', new RegExp(`/console/inbox/${cnv.id}`));
    assert.match(alert.text ?? '', /copy of my invoice/);
    // The customer writes again within 5 minutes: in the same conversation, and no second team email.
    const second = `t2-${uid()}@customer.test`;
    const again = await postInbound(mime({ from: customer, to: f.address, subject: 'Re: Invoice copy', messageId: second, inReplyTo: first, references: [first], text: 'Any news?' }));
    assert.equal(again.body.conversation_id, cnv.id);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(mailsTo(lead).length, 1);

    // A teammate answers from the console: the reply goes out over SMTP, threaded, from the address written to.
    const key = await ctx.stack.services.accounts.createApiKey({ accountId: f.accountId, mode: 'live' });
    const console_ = await signInToConsole(ctx.stack.baseUrl, key.secret);
    assert.equal((await console_.post(`/console/inbox/${cnv.id}/reply`, { content: 'Here it is, attached to your account page.' })).status, 303);
    const reply = await mailTo(customer);
    assert.equal(reply.from?.value[0]?.address, f.address);
    assert.equal(stripBrackets(reply.inReplyTo), second);
    assert.match(reply.text ?? '', /Here it is/);
    assert.equal(reply.headers.get('auto-submitted'), undefined, 'a person wrote it');
  });

  it('refuses unsigned, badly signed and stale inbound posts with 401 and ignores mail to unknown addresses and auto-replies', async () => {
    const f = await seedEmailAgent();
    const raw = mime({ from: `gus-${uid()}@customer.test`, to: f.address, subject: 'Hi', messageId: `u-${uid()}@customer.test`, text: 'Hello' });
    const unsigned = await postInbound(raw, null);
    assert.equal(unsigned.status, 401);
    assert.equal(unsigned.body.error.code, 'signature_missing');
    assert.equal(unsigned.body.error.type, 'authentication_error');
    assert.match(unsigned.body.error.request_id, /./);
    const wrong = await postInbound(raw, signatureHeader(`whsec_${uid()}${uid()}`, raw));
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'signature_invalid');
    const tampered = await postInbound(raw.replace('Hello', 'Hellp'), signatureHeader(INBOUND_SECRET, raw));
    assert.equal(tampered.body.error.code, 'signature_invalid');
    const stale = await postInbound(raw, signatureHeader(INBOUND_SECRET, raw, Math.floor(Date.now() / 1000) - 600));
    assert.equal(stale.body.error.code, 'signature_invalid');
    assert.equal((await f.call('GET', '/v1/conversations')).body.data.length, 0, 'nothing was received');

    const unknown = await postInbound(mime({ from: `gus-${uid()}@customer.test`, to: `nobody-${uid()}@acme.test`, subject: 'Hi', messageId: `u2-${uid()}@customer.test`, text: 'Hello' }));
    assert.equal(unknown.status, 200);
    assert.equal(unknown.body.status, 'ignored');
    const vacation = await postInbound(
      mime({ from: `gus-${uid()}@customer.test`, to: f.address, subject: 'Out of office', messageId: `u3-${uid()}@customer.test`, text: 'I am away', headers: { 'Auto-Submitted': 'auto-replied' } }),
    );
    assert.equal(vacation.body.status, 'ignored');
    assert.equal((await f.call('GET', '/v1/conversations')).body.data.length, 0);
  });

  it('refuses a 9 MB inbound post that cannot verify (no header, malformed, stale) before reading its body (LOW)', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const [signature, code] of [
      [null, 'signature_missing'],
      ['t=abc,v1=00', 'signature_invalid'],
      [`t=${now - 600},v1=${'ab'.repeat(32)}`, 'signature_invalid'],
    ] as const) {
      // Headers announcing 9 MB, and no body: the answer must come without waiting for it.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(new URL(INBOUND_EMAIL_PATH, ctx.stack.baseUrl), {
          method: 'POST',
          headers: { 'content-type': 'message/rfc822', 'content-length': String(9_000_000), ...(signature ? { 'service-signature': signature } : {}) },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.setTimeout(3000, () => reject(new Error('no answer within 3 s: the hook waited for the body')));
        req.flushHeaders();
      });
      assert.equal(answer.status, 401, String(signature));
      assert.equal(JSON.parse(answer.body).error.code, code);
    }
  });

  it('cuts an inbound email longer than the API\'s 20,000-character message cap, with a note of what was left out (LOW)', async () => {
    const f = await seedEmailAgent();
    const line = 'This is a long quoted history line of an old thread.\n';
    const text = `Where is my parcel?\n${line.repeat(1000)}`;
    assert.ok(text.length > 50_000);
    const res = await postInbound(mime({ from: `long-${uid()}@customer.test`, to: f.address, subject: 'Long', messageId: `l-${uid()}@customer.test`, text }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const transcript = await f.call('GET', `/v1/conversations/${res.body.conversation_id}/messages`);
    const content = transcript.body.data[0].content as string;
    assert.ok(content.length <= 20_000, String(content.length));
    assert.ok(content.startsWith('Where is my parcel?\n'));
    assert.match(content, /\[… \d+ more characters not shown\]$/);
    assert.ok(content.length > 19_000, 'the cut keeps as much as fits');
  });
});
