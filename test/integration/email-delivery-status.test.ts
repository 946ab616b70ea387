import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { INBOUND_EMAIL_PATH } from '../../src/channels/email/email.routes';
import { signatureHeader } from '../../src/domain/signature';
import { seedAgent } from '../support/agents';
import { buildTestConfig } from '../support/config';
import { signInToConsole } from '../support/console';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';

/**
 * Issue 29 item 2: a message that was not handed to a relay says so. This stack has no SMTP relay
 * (SMTP_HOST unset) and only the sandbox SMS carrier (the defaults of `npm start`).
 */
const INBOUND_SECRET = `whsec_${randomBytes(18).toString('base64url')}`;
const base = buildTestConfig();
const ctx = useTestStack({ label: __filename, config: { email: { ...base.email, smtp: undefined, inboundSecret: INBOUND_SECRET } } });

const uid = () => randomBytes(6).toString('hex');

describe('a reply that was not sent says so (issue 29 item 2)', () => {
  it('with no SMTP relay, an agent reply and a human reply by email are failed (smtp_not_configured), emit email.failed and are marked in the console transcript', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'email'] }, undefined, 'live');
    const domain = await ctx.stack.services.emailDomains.addDomain({ accountId: f.accountId, livemode: true, domain: 'acme.test' });
    await ctx.stack.database.db.updateTable('email_domains').set({ verified_at: new Date() }).where('id', '=', domain.id).execute();
    const address = `support-${uid()}@acme.test`;
    await ctx.stack.services.emailAddresses.addAddress({ accountId: f.accountId, livemode: true, address, agentId: f.agentId });

    const raw = [`From: ada-${uid()}@customer.test`, `To: ${address}`, 'Subject: Shipping', `Message-ID: <${uid()}@customer.test>`, 'Content-Type: text/plain', '', 'How long does standard shipping take?', ''].join('\r\n');
    const posted = await fetch(`${ctx.stack.baseUrl}${INBOUND_EMAIL_PATH}`, { method: 'POST', headers: { 'content-type': 'message/rfc822', 'service-signature': signatureHeader(INBOUND_SECRET, raw) }, body: raw });
    const received = (await posted.json()) as any;
    assert.equal(received.status, 'accepted', JSON.stringify(received));
    const cnv = received.conversation_id as string;

    const failed = await pollUntil('the email.failed event', async () => ((await f.call('GET', '/v1/events?type=email.failed')).body.data as any[]).find((e) => e.data.conversation_id === cnv));
    assert.equal(failed.data.status, 'failed');
    assert.equal(failed.data.error.code, 'smtp_not_configured');
    const transcript = (await f.call('GET', `/v1/conversations/${cnv}/messages`)).body.data;
    const reply = transcript.find((m: any) => m.role === 'agent');
    assert.equal(failed.data.message_id, reply.id);
    assert.equal((await f.call('GET', '/v1/events?type=email.delivered')).body.data.length, 0, 'nothing claims it was delivered');

    const human = await f.call('POST', `/v1/conversations/${cnv}/messages`, { role: 'human', content: 'Hi, this is Sam from support.' });
    assert.equal(human.status, 201);
    const humanEmail = await pollUntil('the human reply settled', async () => ((await f.call('GET', `/v1/emails?conversation_id=${cnv}&direction=outbound`)).body.data as any[]).find((e) => e.message_id === human.body.id && e.status !== 'sending'));
    assert.equal(humanEmail.status, 'failed');
    assert.equal(humanEmail.error.code, 'smtp_not_configured');

    const console = await signInToConsole(ctx.stack.baseUrl, f.apiKey);
    const page = await console.get(`/console/inbox/${cnv}`);
    assert.equal(page.status, 200);
    assert.equal(page.text.match(/Not sent:<\/b> <span class="mono">smtp_not_configured<\/span>/g)?.length, 2, 'both replies are marked');
  });

  it('an SMS reply that failed is marked in the console transcript with its error code', async () => {
    const f = await seedAgent(ctx.stack, { channels: ['chat', 'sms'] });
    const scope = { accountId: f.accountId, livemode: false };
    const number = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ ...scope, number: '+14155550177' });
    await ctx.stack.services.phoneNumbers.attachAgent({ ...scope, phoneNumberId: number.id, agentId: f.agentId });
    // The sandbox refuses this recipient at submit (docs/sms-error-codes.md); the test stack may have no route at all.
    const cnv = await f.call('POST', '/v1/conversations', { agent_id: f.agentId, channel: 'sms', customer: { phone: '+12025550100' } });
    const asked = await f.call('POST', `/v1/conversations/${cnv.body.id}/messages`, { role: 'customer', content: 'How long does standard shipping take?' });
    assert.equal(asked.body.run.status, 'completed', JSON.stringify(asked.body.run));
    const failed = await pollUntil('the failed SMS', async () => ((await f.call('GET', '/v1/messages?direction=outbound')).body.data as any[]).find((m) => m.status === 'failed'));
    assert.ok(['carrier_rejected', 'no_route'].includes(failed.error_code), failed.error_code);
    const page = await (await signInToConsole(ctx.stack.baseUrl, f.apiKey)).get(`/console/inbox/${cnv.body.id}`);
    assert.ok(page.text.includes(`Not sent:</b> <span class="mono">${failed.error_code}</span>`), 'the failed SMS reply is marked');
  });

  it('the console shows a banner on the Email page while no SMTP relay is configured, and on the Numbers page while only the sandbox carrier is', async () => {
    const { apiKey } = await ctx.stack.newAccount();
    const console = await signInToConsole(ctx.stack.baseUrl, apiKey);
    const emailPage = await console.get('/console/email');
    assert.equal(emailPage.status, 200);
    assert.match(emailPage.text, /data-banner="smtp-not-configured"[^>]*><b>No SMTP relay is configured<\/b>/);
    const numbersPage = await console.get('/console/numbers');
    assert.equal(numbersPage.status, 200);
    assert.match(numbersPage.text, /data-banner="sandbox-carrier-only"[^>]*><b>Only the sandbox carrier is configured<\/b>/);
  });
});
