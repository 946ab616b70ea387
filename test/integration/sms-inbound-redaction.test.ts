import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { sql } from 'kysely';
import { apiClient, type ApiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { SmscSimulator } from '../support/smsc-simulator';
import { startStackOverSmsc, type TestStack } from '../support/stack';
import { createTimeSkippingEnv } from '../support/temporal';

/**
 * Issue 28 #5: an inbound SMS is a customer message, so its text is redacted before it is stored or
 * emitted, whichever carrier path brought it: the test helper (the sandbox's own deliver path) and an SMPP
 * deliver_sm from the SMSC (a concatenated one too). The message's stored body, the API object,
 * message.received and its webhook hold the placeholders, never the card number or the SSN; consent
 * keywords still work on the redacted text.
 */
let env: TestWorkflowEnvironment;
let stack: TestStack;
const smsc = new SmscSimulator();

before(async () => {
  env = await createTimeSkippingEnv();
  stack = await startStackOverSmsc({ label: __filename, env, smsc, carriersFor: (port) => [
    { name: 'smsc', type: 'smpp', host: '127.0.0.1', port, system_id: 'test', password: 'secret', prefixes: ['+44'], priority: 1, max_mps: 1000, window: 20 },
    { name: 'sandbox', type: 'sandbox', prefixes: ['+'], priority: 10, submit_delay_ms: 0, receipt_delay_ms: 0 },
  ] });
});
after(async () => {
  await stack?.close();
  await smsc.stop();
  await env?.teardown();
});

const TEXT = 'my card is 4242 4242 4242 4242 and SSN 123-45-6789';
const REDACTED = 'my card is [card ••••4242] and SSN [redacted ssn]';
/** The values in clear, as typed and compact. */
const CLEAR = [/4242 4242 4242 4242/, /4242424242424242/, /123-45-6789/, /123456789/];

function assertNoClearValue(what: string, value: unknown) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  for (const re of CLEAR) assert.doesNotMatch(text, re, `${what} holds ${re.source} in clear: ${text}`);
}

async function storedBody(id: string): Promise<string> {
  const { rows } = await sql<{ body: string }>`select body from messages where id = ${id}`.execute(stack.database.db);
  assert.equal(rows.length, 1, `message ${id} is stored`);
  return rows[0]!.body;
}

async function receivedEvents(call: ApiClient) {
  const res = await call('GET', '/v1/events?type=message.received&limit=100');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { data: { id: string; body: string } }[];
}

describe('inbound SMS redaction (issue 28 #5)', () => {
  it('the test helper\'s inbound SMS is stored, answered by the API, emitted as message.received and sent to the webhook with its card number and SSN redacted', async () => {
    const account = await stack.newAccount();
    const call = apiClient(stack.baseUrl, account.apiKey);
    const hooks = await startReceiver();
    try {
      const endpoint = await call('POST', '/v1/webhook_endpoints', { url: `${hooks.url}/hooks`, events: ['message.received'] });
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
      const number = '+14155550142';
      await stack.services.phoneNumbers.provisionPhoneNumber({ accountId: account.accountId, livemode: false, number });

      const sent = await call('POST', '/v1/test_helpers/inbound_messages', { from: '+14155550100', to: number, body: TEXT });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      assert.equal(sent.body.body, REDACTED);
      assertNoClearValue('the test helper\'s answer', sent.body);

      assert.equal(await storedBody(sent.body.id), REDACTED);
      const got = await call('GET', `/v1/messages/${sent.body.id}`);
      assert.equal(got.body.body, REDACTED);
      assertNoClearValue('GET /v1/messages', (await call('GET', '/v1/messages?direction=inbound')).body);

      const events = await receivedEvents(call);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.data.body, REDACTED);
      assertNoClearValue('the message.received event', events);

      await hooks.waitFor(1);
      const delivered = JSON.parse(hooks.requests[0]!.rawBody.toString());
      assert.equal(delivered.type, 'message.received');
      assert.equal(delivered.data.body ?? delivered.data.object?.body, REDACTED);
      assertNoClearValue('the webhook payload', hooks.requests[0]!.rawBody.toString());
    } finally {
      await hooks.close();
    }
  });

  it('an SMPP deliver_sm (one part or concatenated) is stored and emitted redacted, and STOP from the same handset still opts it out', async () => {
    const account = await stack.newAccount(undefined, 'live');
    const call = apiClient(stack.baseUrl, account.apiKey);
    const number = '+447512345679';
    const customer = '+447400123459';
    await stack.services.phoneNumbers.provisionPhoneNumber({ accountId: account.accountId, livemode: true, number });

    // A long one: three concatenated parts, the card across the first part boundary (reassembled, then redacted).
    const long = `${'Hello, I would like to update the payment details on my account please. '.repeat(2).slice(0, 150)} ${TEXT}. ${'Thank you! '.repeat(12)}`;
    await smsc.sendMo({ from: customer, to: number, body: TEXT });
    await smsc.sendMo({ from: customer, to: number, body: long });
    const inbound: { id: string; body: string }[] = await pollUntil('the two inbound messages', async () => {
      const data = (await call('GET', '/v1/messages?direction=inbound')).body.data;
      return data.length === 2 && data;
    });
    const bodies = inbound.map((m) => m.body).sort((a, b) => a.length - b.length);
    assert.equal(bodies[0], REDACTED);
    assert.ok(bodies[1]!.includes(REDACTED), bodies[1]);
    for (const m of inbound) assertNoClearValue('the stored body', await storedBody(m.id));
    assertNoClearValue('GET /v1/messages', inbound);
    const events = await receivedEvents(call);
    assert.equal(events.length, 2);
    assertNoClearValue('the message.received events', events);

    // Consent keywords are read on the redacted text: STOP still opts the handset out of the number.
    await smsc.sendMo({ from: customer, to: number, body: 'STOP' });
    await pollUntil('the STOP message', async () => (await call('GET', '/v1/messages?direction=inbound')).body.data.length === 3);
    const offer = await call('POST', '/v1/messages', { to: customer, from: number, body: 'Offer' });
    assert.equal(offer.status, 201, JSON.stringify(offer.body));
    const failed = await pollUntil('the offer to fail', async () => {
      const m = (await call('GET', `/v1/messages/${offer.body.id}`)).body;
      return m.status === 'failed' && m;
    });
    assert.equal(failed.error_code, 'recipient_opted_out');
  });
});
