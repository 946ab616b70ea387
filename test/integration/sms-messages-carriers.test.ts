import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SANDBOX_MAGIC_NUMBERS } from '../../src/sms/carriers/sandbox.carrier';
import { apiClient, type ApiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { SmscSimulator } from '../support/smsc-simulator';
import { startStackOverSmsc, type TestStack } from '../support/stack';
import { createTimeSkippingEnv } from '../support/temporal';

/**
 * The messaging API over the real carrier layer: the router with an SMPP carrier bound to the local
 * SMSC simulator for UK numbers, a dead SMPP carrier preferred for German numbers (failover), and the
 * sandbox for everything else.
 */
let env: TestWorkflowEnvironment;
let stack: TestStack;
const smsc = new SmscSimulator({ outcomes: { '+447400123457': 'UNDELIV' } });

before(async () => {
  env = await createTimeSkippingEnv();
  stack = await startStackOverSmsc({ label: __filename, env, smsc, carriersFor: (port) => [
    { name: 'smsc', type: 'smpp', host: '127.0.0.1', port, system_id: 'test', password: 'secret', prefixes: ['+44'], priority: 1, max_mps: 1000, window: 20 },
    // Nothing listens on port 1: this carrier never binds and the router skips it.
    { name: 'dead', type: 'smpp', host: '127.0.0.1', port: 1, system_id: 'test', password: 'secret', prefixes: ['+49'], priority: 1, reconnect_min_ms: 50, reconnect_max_ms: 200 },
    { name: 'sandbox', type: 'sandbox', prefixes: ['+'], priority: 10, submit_delay_ms: 0, receipt_delay_ms: 0 },
  ] });
});
after(async () => {
  await stack?.close();
  await smsc.stop();
  await env?.teardown();
});

let senderSeq = 0;
/** A fresh account with a live key and a sender ID of its own (live mode: test mode reaches only the sandbox). */
async function client() {
  const account = await stack.newAccount(undefined, 'live');
  const sender = `Acme${++senderSeq}`;
  await stack.services.senders.registerSender({ accountId: account.accountId, livemode: true, sender });
  return { ...account, sender, call: apiClient(stack.baseUrl, account.apiKey) };
}

async function waitForStatus(call: ApiClient, id: string, status: string) {
  let last: any;
  return pollUntil(`message ${id} to be ${status}`, async () => {
    last = (await call('GET', `/v1/messages/${id}`)).body;
    return last.status === status && last;
  }, { detail: () => `it is ${last?.status}` });
}

describe('sandbox carrier through the API', () => {
  it('follows the documented magic numbers', async () => {
    const { call, sender } = await client();
    const expected: [string, string, string | null][] = [
      ['+14155550123', 'delivered', null],
      [SANDBOX_MAGIC_NUMBERS.failAtSubmit, 'failed', 'carrier_rejected'],
      [SANDBOX_MAGIC_NUMBERS.undelivered, 'undelivered', 'undeliverable'],
      [SANDBOX_MAGIC_NUMBERS.noReceipt, 'sent', null],
      [SANDBOX_MAGIC_NUMBERS.carrierDownOnce, 'delivered', null],
    ];
    const ids = [];
    for (const [to] of expected) ids.push((await call('POST', '/v1/messages', { to, from: sender, body: 'sandbox' })).body.id);
    for (const [i, [, status, code]] of expected.entries()) {
      const m = await waitForStatus(call, ids[i], status);
      assert.equal(m.error_code, code, `${expected[i]![0]}`);
      assert.equal(m.price === null, status === 'failed', `charged unless failed: ${expected[i]![0]}`);
      if (status !== 'failed') assert.equal(m.carrier, 'sandbox');
    }
  });
});

describe('SMPP carrier through the API', () => {
  it('submits over SMPP, records the SMSC message id, and applies its DELIVRD receipt', async () => {
    const { call, sender } = await client();
    const res = await call('POST', '/v1/messages', { to: '+447400123456', from: sender, body: 'Over SMPP' });
    const m = await waitForStatus(call, res.body.id, 'delivered');
    assert.equal(m.carrier, 'smsc');
    const submit = smsc.accepted.find((s) => s.text === 'Over SMPP');
    assert.ok(submit);
    assert.equal(m.carrier_message_id, submit.messageId);
    assert.equal(m.price, '0.0400');
  });

  it('sends a long body as concatenated parts, one submit_sm per segment', async () => {
    const { call, sender } = await client();
    const body = `${'Long message. '.repeat(20)}end`;
    const res = await call('POST', '/v1/messages', { to: '+447400123456', from: sender, body });
    assert.equal(res.body.segments, 2);
    const m = await waitForStatus(call, res.body.id, 'delivered');
    // The only concatenated message of this file.
    const parts = smsc.accepted.filter((s) => s.concat !== undefined);
    assert.equal(parts.length, 2);
    assert.equal(parts.map((p) => p.text).join(''), body);
    assert.equal(m.price, '0.0800');
  });

  it('ends undelivered on an UNDELIV receipt', async () => {
    const { call, sender } = await client();
    const res = await call('POST', '/v1/messages', { to: '+447400123457', from: sender, body: 'Nobody home' });
    const m = await waitForStatus(call, res.body.id, 'undelivered');
    assert.equal(m.error_code, 'undeliverable');
    assert.match(m.error_message, /undelivered/);
  });

  it('stores an inbound deliver_sm as an inbound message, and STOP from it blocks the next send', async () => {
    const { call, accountId, sender } = await client();
    await stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: true, number: '+447512345678' });
    await smsc.sendMo({ from: '+447400123458', to: '+447512345678', body: 'STOP' });
    const inbound: any[] = await pollUntil('the inbound message', async () => {
      const data = (await call('GET', '/v1/messages?direction=inbound')).body.data;
      return data.length > 0 && data;
    }, { intervalMs: 25, timeoutMs: 5000 });
    assert.deepEqual(inbound.map((m) => [m.from, m.to, m.body]), [['+447400123458', '+447512345678', 'STOP']]);
    const res = await call('POST', '/v1/messages', { to: '+447400123458', from: '+447512345678', body: 'Offer' });
    const m = await waitForStatus(call, res.body.id, 'failed');
    assert.equal(m.error_code, 'recipient_opted_out');
    assert.equal(smsc.submits.filter((s) => s.text === 'Offer').length, 0);
  });

  it('fails over from a carrier that is down to the next one for the prefix', async () => {
    const { call, sender } = await client();
    const res = await call('POST', '/v1/messages', { to: '+4915123456789', from: sender, body: 'Failover' });
    const m = await waitForStatus(call, res.body.id, 'delivered');
    assert.equal(m.carrier, 'sandbox');
  });
});
