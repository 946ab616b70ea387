import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isQuietTime } from '../../src/sms/quiet-hours';
import { verifySignatureHeader } from '../../src/domain/signature';
import { smsDeliveryWorkflowId } from '../../workflows/shared/sms.contracts';
import { apiClient, type ApiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { FakeSmsCarrier } from '../support/sms-messages-fake-carrier';
import { useTestStack } from '../support/stack';

const carrier = new FakeSmsCarrier();
const ctx = useTestStack({ label: __filename, smsCarriers: carrier });

let numberSeq = 0;
/** A fresh valid US mobile-style number per call, so tests never share a recipient. */
const freshNumber = () => `+1415555${String(1000 + ++numberSeq).padStart(4, '0')}`;

let senderSeq = 0;
/** A fresh account with a sender ID of its own (senders belong to one account). */
async function newClient() {
  const account = await ctx.stack.newAccount();
  const sender = `Acme${++senderSeq}`;
  await ctx.stack.services.senders.registerSender({ accountId: account.accountId, livemode: false, sender });
  return { ...account, sender, call: apiClient(ctx.stack.baseUrl, account.apiKey) };
}

async function waitForStatus(call: ApiClient, id: string, status: string | string[]) {
  const want = Array.isArray(status) ? status : [status];
  let last: any;
  return pollUntil(`message ${id} to be ${want.join('|')}`, async () => {
    last = (await call('GET', `/v1/messages/${id}`)).body;
    return want.includes(last.status) && last;
  }, { detail: () => `it is ${last?.status}` });
}

/** Resolves once the message's workflow is parked on a durable timer (send_at or quiet hours). */
async function waitForTimer(messageId: string) {
  const handle = ctx.env.client.workflow.getHandle(smsDeliveryWorkflowId(messageId));
  await pollUntil('the delivery workflow to start a timer', async () => {
    const history = await handle.fetchHistory().catch(() => undefined);
    return history?.events?.some((e) => e.timerStartedEventAttributes) ?? false;
  });
}

/**
 * Waits (wall clock) for the message's workflow to close and returns how it closed. Tests never await
 * a workflow result under time skipping: an idle test server then jumps years ahead.
 */
async function workflowClosed(messageId: string) {
  const handle = ctx.env.client.workflow.getHandle(smsDeliveryWorkflowId(messageId));
  return pollUntil(`the workflow of ${messageId} to close`, async () => {
    const d = await handle.describe();
    return d.status.name !== 'RUNNING' && d.status.name;
  });
}

const eventsOfType = (accountId: string, type: string) =>
  ctx.stack.database.db.selectFrom('events').selectAll().where('account_id', '=', accountId).where('type', '=', type).orderBy('created_at').execute();

describe('sending', () => {
  it('creates a queued message (201) with every SPEC field, then delivers and charges it', async () => {
    const { call, sender } = await newClient();
    const to = freshNumber();
    const res = await call('POST', '/v1/messages', { to, from: sender, body: 'Hello from Acme', reference: 'order-42' });
    assert.equal(res.status, 201);
    const m = res.body;
    assert.match(m.id, /^msg_/);
    assert.equal(m.object, 'message');
    assert.equal(m.channel, 'sms');
    assert.equal(m.direction, 'outbound');
    assert.equal(m.type, 'transactional');
    assert.deepEqual([m.to, m.from, m.body, m.status, m.segments], [to, sender, 'Hello from Acme', 'queued', 1]);
    assert.equal(m.price, null);
    assert.equal(m.price_currency, null);
    assert.equal(m.error_code, null);
    assert.equal(m.reference, 'order-42');
    assert.ok(!Number.isNaN(Date.parse(m.created_at)));

    const delivered = await waitForStatus(call, m.id, 'delivered');
    assert.equal(delivered.price, '0.0079');
    assert.equal(delivered.price_currency, 'USD');
    assert.equal(delivered.carrier, 'fake');
    assert.match(delivered.carrier_message_id, /^fake-/);
    assert.equal(delivered.reference, 'order-42');
    assert.equal(carrier.submitsTo(to).length, 1);
    assert.equal(carrier.submitsTo(to)[0]!.body, 'Hello from Acme');
  });

  it('prices per segment and destination: a 2-segment UK message costs twice the GB rate', async () => {
    const { call, sender } = await newClient();
    const res = await call('POST', '/v1/messages', { to: '+447400123456', from: sender, body: 'x'.repeat(200) });
    assert.equal(res.body.segments, 2);
    const delivered = await waitForStatus(call, res.body.id, 'delivered');
    assert.equal(delivered.price, '0.0800');
  });

  it('accepts one of the account\'s numbers as from, and lists and retrieves its phone numbers', async () => {
    const { call, accountId, sender } = await newClient();
    const own = freshNumber();
    const pn = await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: false, number: own });
    const list = await call('GET', '/v1/phone_numbers');
    assert.deepEqual(list.body.data.map((p: any) => p.number), [own]);
    const one = await call('GET', `/v1/phone_numbers/${pn.id}`);
    assert.equal(one.body.object, 'phone_number');
    const other = await newClient();
    assert.equal((await other.call('GET', `/v1/phone_numbers/${pn.id}`)).status, 404);

    const ok = await call('POST', '/v1/messages', { to: freshNumber(), from: own, body: 'hi' });
    assert.equal(ok.status, 201);
    const foreign = await other.call('POST', '/v1/messages', { to: freshNumber(), from: own, body: 'hi' });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.error.code, 'sender_not_registered');
    assert.equal(foreign.body.error.param, 'from');
  });

  it('replays an Idempotency-Key: same message, one submit', async () => {
    const { call, sender } = await newClient();
    const to = freshNumber();
    const body = { to, from: sender, body: 'once only' };
    const first = await call('POST', '/v1/messages', body, { 'Idempotency-Key': 'k-1' });
    const second = await call('POST', '/v1/messages', body, { 'Idempotency-Key': 'k-1' });
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.equal(second.body.id, first.body.id);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    await waitForStatus(call, first.body.id, 'delivered');
    const list = await call('GET', `/v1/messages?to=${encodeURIComponent(to)}`);
    assert.equal(list.body.data.length, 1);
    assert.equal(carrier.submitsTo(to).length, 1);
  });
});

describe('validation', () => {
  it('answers 400 (422 for values of the documented shape that break an unstated rule) naming the parameter, and stores and sends nothing', async () => {
    const { call, accountId, sender } = await newClient();
    const to = freshNumber();
    const base = { to, from: sender, body: 'hello' };
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...base, to: '4155550100' }, 'to', 'parameter_invalid'],
      [{ ...base, to: '+15555555555' }, 'to', 'parameter_unprocessable'],
      [{ ...base, to: undefined }, 'to', 'parameter_missing'],
      [{ ...base, from: 'TwelveChars1' }, 'from', 'parameter_invalid'],
      [{ ...base, from: '12' }, 'from', 'parameter_invalid'],
      [{ ...base, from: 'Ac-me' }, 'from', 'parameter_invalid'],
      [{ ...base, body: '' }, 'body', 'parameter_invalid'],
      [{ ...base, body: 'a'.repeat(1531) }, 'body', 'parameter_unprocessable'],
      [{ ...base, body: 'ж'.repeat(671) }, 'body', 'parameter_unprocessable'],
      [{ ...base, body: 'a'.repeat(1601) }, 'body', 'parameter_invalid'],
      [{ ...base, send_at: new Date(Date.now() - 60_000).toISOString() }, 'send_at', 'parameter_unprocessable'],
      [{ ...base, send_at: new Date(Date.now() + 36 * 86_400_000).toISOString() }, 'send_at', 'parameter_unprocessable'],
      [{ ...base, send_at: 'tomorrow' }, 'send_at', 'parameter_invalid'],
      [{ ...base, status_callback: 'not a url' }, 'status_callback', 'parameter_invalid'],
      [{ ...base, type: 'marketing' }, 'type', 'parameter_invalid'],
      [{ ...base, channel: 'email' }, 'channel', 'parameter_invalid'],
      [{ ...base, colour: 'red' }, 'colour', 'parameter_unknown'],
    ];
    for (const [body, param, code] of cases) {
      const res = await call('POST', '/v1/messages', body);
      assert.equal(res.status, code === 'parameter_unprocessable' ? 422 : 400, JSON.stringify(body).slice(0, 80));
      assert.equal(res.body.error.param, param, JSON.stringify(body).slice(0, 80));
      assert.equal(res.body.error.code, code, JSON.stringify(body).slice(0, 80));
    }
    // The limits themselves are accepted: 10 GSM-7 segments, 670 UCS-2 code units, 35 days ahead.
    for (const body of [{ ...base, body: 'a'.repeat(1530), send_at: inAnHour }, { ...base, body: 'ж'.repeat(670), send_at: inAnHour }]) {
      const res = await call('POST', '/v1/messages', body);
      assert.equal(res.status, 201);
      assert.equal(res.body.segments, 10);
      await call('POST', `/v1/messages/${res.body.id}/cancel`);
    }
    const rows = await ctx.stack.database.db.selectFrom('messages').select('status').where('account_id', '=', accountId).execute();
    assert.deepEqual(rows.map((r) => r.status), ['canceled', 'canceled']);
    assert.equal(carrier.submitsTo(to).length, 0);
  });
});

describe('listing', () => {
  it('lists newest first with cursors and the to, status, direction and created filters', async () => {
    const { call, sender } = await newClient();
    const a = freshNumber();
    const b = freshNumber();
    const ids: string[] = [];
    for (const to of [a, b, a]) ids.push((await call('POST', '/v1/messages', { to, from: sender, body: 'list me' })).body.id);
    for (const id of ids) await waitForStatus(call, id, 'delivered');

    const all = await call('GET', '/v1/messages');
    assert.deepEqual(all.body.data.map((m: any) => m.id), [...ids].reverse());
    const page1 = await call('GET', '/v1/messages?limit=2');
    assert.equal(page1.body.has_more, true);
    const page2 = await call('GET', `/v1/messages?limit=2&starting_after=${page1.body.data[1].id}`);
    assert.deepEqual(page2.body.data.map((m: any) => m.id), [ids[0]]);
    assert.equal(page2.body.has_more, false);

    const toA = await call('GET', `/v1/messages?to=${encodeURIComponent(a)}`);
    assert.deepEqual(toA.body.data.map((m: any) => m.id), [ids[2], ids[0]]);
    assert.equal((await call('GET', '/v1/messages?status=queued')).body.data.length, 0);
    assert.equal((await call('GET', '/v1/messages?status=delivered&direction=outbound')).body.data.length, 3);
    assert.equal((await call('GET', '/v1/messages?direction=inbound')).body.data.length, 0);
    // created_at is shown to the millisecond; the stored value is finer, so bracket the middle one.
    const created = all.body.data[1].created_at;
    const justAfter = new Date(Date.parse(created) + 1).toISOString();
    const after = await call('GET', `/v1/messages?created_after=${encodeURIComponent(justAfter)}`);
    assert.deepEqual(after.body.data.map((m: any) => m.id), [ids[2]]);
    const before = await call('GET', `/v1/messages?created_before=${encodeURIComponent(created)}`);
    assert.deepEqual(before.body.data.map((m: any) => m.id), [ids[0]]);
    assert.equal((await call('GET', '/v1/messages?status=lost')).status, 400);
  });
});

describe('scheduling', () => {
  it('holds a message until send_at on a durable timer, then sends it', async () => {
    const { call, sender } = await newClient();
    const to = freshNumber();
    carrier.behaviors.set(to, 'receipt-first');
    // Workflow time runs ahead of the wall clock once a test has skipped time: schedule against it.
    const sendAt = new Date((await ctx.env.currentTimeMs()) + 2 * 3_600_000).toISOString();
    const res = await call('POST', '/v1/messages', { to, from: sender, body: 'later', send_at: sendAt });
    assert.equal(res.status, 201);
    assert.equal(res.body.send_at, sendAt);
    await waitForTimer(res.body.id);
    assert.equal((await call('GET', `/v1/messages/${res.body.id}`)).body.status, 'queued');
    assert.equal(carrier.submitsTo(to).length, 0);

    await ctx.env.sleep('1h');
    assert.equal((await call('GET', `/v1/messages/${res.body.id}`)).body.status, 'queued');
    await ctx.env.sleep('61m');
    await waitForStatus(call, res.body.id, 'delivered');
    assert.equal(await workflowClosed(res.body.id), 'COMPLETED');
    assert.equal(carrier.submitsTo(to).length, 1);
  });

  it('cancels a scheduled message: canceled, never submitted, and not cancelable twice', async () => {
    const { call, accountId, sender } = await newClient();
    const to = freshNumber();
    const res = await call('POST', '/v1/messages', { to, from: sender, body: 'never', send_at: new Date((await ctx.env.currentTimeMs()) + 3_600_000).toISOString() });
    await waitForTimer(res.body.id);
    const canceled = await call('POST', `/v1/messages/${res.body.id}/cancel`);
    assert.equal(canceled.status, 200);
    assert.equal(canceled.body.status, 'canceled');
    assert.equal(await workflowClosed(res.body.id), 'COMPLETED');
    assert.equal(carrier.submitsTo(to).length, 0);
    assert.equal((await call('GET', `/v1/messages/${res.body.id}`)).body.price, null);
    const again = await call('POST', `/v1/messages/${res.body.id}/cancel`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'message_not_cancelable');
    const updates = await eventsOfType(accountId, 'message.updated');
    assert.deepEqual(updates.map((e) => e.data.status), ['canceled']);

    const sentNow = await call('POST', '/v1/messages', { to, from: sender, body: 'now' });
    await waitForStatus(call, sentNow.body.id, 'delivered');
    assert.equal((await call('POST', `/v1/messages/${sentNow.body.id}/cancel`)).status, 409);
    assert.equal((await call('POST', '/v1/messages/msg_nope/cancel')).status, 404);
  });

  it('holds a promotional message through the recipient\'s quiet hours; transactional ones go at once', async () => {
    const candidates = ['+447400123456', '+919812345678', '+819012345678', '+61412345678', '+5511987654321', '+64211234567', '+14155550100'];
    const countries: Record<string, string> = { '+44': 'GB', '+91': 'IN', '+81': 'JP', '+61': 'AU', '+55': 'BR', '+64': 'NZ', '+14': 'US' };
    const country = (n: string) => countries[n.slice(0, 3)]!;
    const now = new Date(await ctx.env.currentTimeMs());
    const quiet = candidates.find((n) => isQuietTime(now, country(n)));
    assert.ok(quiet, 'some candidate country is always in quiet hours');
    carrier.behaviors.set(quiet, 'receipt-first');
    const { call, sender } = await newClient();

    const promo = await call('POST', '/v1/messages', { to: quiet, from: sender, body: 'SALE', type: 'promotional' });
    assert.equal(promo.status, 201);
    await waitForTimer(promo.body.id);
    const held = await ctx.stack.database.db.selectFrom('messages').select(['status', 'held_until']).where('id', '=', promo.body.id).executeTakeFirstOrThrow();
    assert.equal(held.status, 'queued');
    assert.ok(held.held_until && !isQuietTime(held.held_until, country(quiet)));
    assert.ok(held.held_until.getTime() > now.getTime());

    const transactional = await call('POST', '/v1/messages', { to: quiet, from: sender, body: 'Your code is ready' });
    await waitForStatus(call, transactional.body.id, 'delivered');

    assert.equal((await call('GET', `/v1/messages/${promo.body.id}`)).body.status, 'queued');
    await ctx.env.sleep(held.held_until.getTime() - (await ctx.env.currentTimeMs()) + 60_000);
    await waitForStatus(call, promo.body.id, 'delivered');
    assert.equal(carrier.submitsTo(quiet).filter((s) => s.body === 'SALE').length, 1);
  });
});

describe('delivery', () => {
  it('records an undelivered receipt with an error_code, and still charges the message', async () => {
    const { call, sender } = await newClient();
    const to = freshNumber();
    carrier.behaviors.set(to, 'undeliver');
    const res = await call('POST', '/v1/messages', { to, from: sender, body: 'x' });
    const m = await waitForStatus(call, res.body.id, 'undelivered');
    assert.equal(m.error_code, 'undeliverable');
    assert.equal(m.price, '0.0079');
  });

  it('fails a message the carrier refuses, with its error_code and no charge', async () => {
    const { call, sender } = await newClient();
    const to = freshNumber();
    carrier.behaviors.set(to, 'reject');
    const res = await call('POST', '/v1/messages', { to, from: sender, body: 'x' });
    const m = await waitForStatus(call, res.body.id, 'failed');
    assert.equal(m.error_code, 'invalid_destination');
    assert.equal(m.price, null);
  });

  it('waits while every carrier is down and sends once one is back', async () => {
    const { call, sender } = await newClient();
    const to = freshNumber();
    carrier.behaviors.set(to, 'down:3');
    const res = await call('POST', '/v1/messages', { to, from: sender, body: 'x' });
    await waitForStatus(call, res.body.id, 'delivered');
    assert.equal(carrier.submitsTo(to).length, 1);
  });

  it('stays sent when no receipt comes before the timeout; a late receipt still delivers it', async () => {
    const { call, sender } = await newClient();
    const to = freshNumber();
    carrier.behaviors.set(to, 'silent');
    // Scheduled, so the message has a workflow of its own waiting for the receipt.
    const sendAt = new Date((await ctx.env.currentTimeMs()) + 60_000).toISOString();
    const res = await call('POST', '/v1/messages', { to, from: sender, body: 'x', send_at: sendAt });
    await waitForTimer(res.body.id);
    await ctx.env.sleep('2m');
    const sent = await waitForStatus(call, res.body.id, 'sent');
    await ctx.env.sleep('49h');
    assert.equal(await workflowClosed(res.body.id), 'COMPLETED');
    assert.equal((await call('GET', `/v1/messages/${res.body.id}`)).body.status, 'sent');
    await carrier.sendReceipt(sent.carrier_message_id, 'delivered');
    assert.equal((await call('GET', `/v1/messages/${res.body.id}`)).body.status, 'delivered');
  });

  it('sends a burst of immediate messages (batched workflows), one submit each', async () => {
    const { call, sender } = await newClient();
    const tos = Array.from({ length: 20 }, () => freshNumber());
    const created = await Promise.all(tos.map((to) => call('POST', '/v1/messages', { to, from: sender, body: 'batch' })));
    for (const res of created) await waitForStatus(call, res.body.id, 'delivered');
    for (const to of tos) assert.equal(carrier.submitsTo(to).length, 1);
  });

  it('keeps a receipt that arrives before the submit result is recorded, and applies it', async () => {
    const { call, accountId, sender } = await newClient();
    const to = freshNumber();
    carrier.behaviors.set(to, 'receipt-first');
    const res = await call('POST', '/v1/messages', { to, from: sender, body: 'fast handset' });
    const m = await waitForStatus(call, res.body.id, 'delivered');
    assert.equal(m.price, '0.0079');
    const statuses = (await eventsOfType(accountId, 'message.updated')).map((e) => e.data.status);
    assert.deepEqual(statuses, ['sending', 'sent', 'delivered']);
  });

  it('moves statuses only forward: late and duplicate receipts change nothing', async () => {
    const { call, accountId, sender } = await newClient();
    const to = freshNumber();
    const res = await call('POST', '/v1/messages', { to, from: sender, body: 'x' });
    const m = await waitForStatus(call, res.body.id, 'delivered');
    await carrier.sendReceipt(m.carrier_message_id, 'undelivered');
    await carrier.sendReceipt(m.carrier_message_id, 'delivered');
    const after = await call('GET', `/v1/messages/${m.id}`);
    assert.equal(after.body.status, 'delivered');
    assert.equal(after.body.error_code, null);
    const statuses = (await eventsOfType(accountId, 'message.updated')).map((e) => e.data.status);
    assert.deepEqual(statuses, ['sending', 'sent', 'delivered']);
    // Nor does a receipt for a message that failed before sending.
    await ctx.stack.services.messageDelivery.failMessage({ messageId: m.id, errorCode: 'x', errorMessage: 'x' });
    assert.equal((await call('GET', `/v1/messages/${m.id}`)).body.status, 'delivered');
  });

  it('posts signed message.updated events to the status_callback, echoing reference', async () => {
    const receiver = await startReceiver();
    try {
      const { call, accountId, sender } = await newClient();
      const account = await ctx.stack.services.accounts.getAccount({ accountId });
      const res = await call('POST', '/v1/messages', { to: freshNumber(), from: sender, body: 'x', reference: 'ref-7', status_callback: `${receiver.url}/status` });
      await waitForStatus(call, res.body.id, 'delivered');
      await receiver.waitFor(3);
      const events = receiver.requests.map((r) => {
        assert.ok(verifySignatureHeader(account.test_signing_secret, r.rawBody, String(r.headers['service-signature'])));
        return JSON.parse(r.rawBody.toString());
      });
      assert.deepEqual(new Set(events.map((e) => e.data.status)), new Set(['sending', 'sent', 'delivered']));
      for (const e of events) {
        assert.equal(e.type, 'message.updated');
        assert.equal(e.data.id, res.body.id);
        assert.equal(e.data.object, 'message');
        assert.equal(e.data.reference, 'ref-7');
      }
    } finally {
      await receiver.close();
    }
  });
});

describe('inbound and consent', () => {
  it('stores inbound messages and emits message.received', async () => {
    const { call, accountId, sender } = await newClient();
    const own = freshNumber();
    await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: false, number: own });
    const customer = freshNumber();
    await carrier.listener!.onInbound({ carrier: 'fake', from: customer, to: own, body: 'Is my order ready?', receivedAt: new Date(), carrierMessageId: 'in-1', sandbox: true });
    await carrier.listener!.onInbound({ carrier: 'fake', from: customer, to: own, body: 'Is my order ready?', receivedAt: new Date(), carrierMessageId: 'in-1', sandbox: true });
    const inbound = await call('GET', '/v1/messages?direction=inbound');
    assert.equal(inbound.body.data.length, 1);
    const m = inbound.body.data[0];
    assert.deepEqual([m.direction, m.from, m.to, m.body, m.status], ['inbound', customer, own, 'Is my order ready?', 'received']);
    const received = await eventsOfType(accountId, 'message.received');
    assert.equal(received.length, 1);
    const data = received[0]!.data as any;
    assert.deepEqual([data.id, data.object, data.direction, data.from, data.to, data.body], [m.id, 'message', 'inbound', customer, own, 'Is my order ready?']);
  });

  it('STOP opts the recipient out of that sender: sends fail unpaid; START opts back in', async () => {
    const { call, accountId, sender } = await newClient();
    const own = freshNumber();
    const other = freshNumber();
    await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: false, number: own });
    await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: false, number: other });
    const customer = freshNumber();

    await carrier.listener!.onInbound({ carrier: 'fake', from: customer, to: own, body: ' stop ', receivedAt: new Date(), carrierMessageId: 'stop-1', sandbox: true });
    assert.equal((await eventsOfType(accountId, 'message.received')).length, 1);
    const blocked = await call('POST', '/v1/messages', { to: customer, from: own, body: 'promo' });
    assert.equal(blocked.status, 201);
    const failed = await waitForStatus(call, blocked.body.id, 'failed');
    assert.equal(failed.error_code, 'recipient_opted_out');
    assert.equal(failed.price, null);
    // Consent is per sender: another of the account's numbers may still write.
    const otherSender = await call('POST', '/v1/messages', { to: customer, from: other, body: 'hi' });
    await waitForStatus(call, otherSender.body.id, 'delivered');
    // The opt-out was confirmed once, from the number that received STOP.
    const replies = carrier.submitsTo(customer).filter((s) => s.from === own);
    assert.equal(replies.length, 1);
    assert.match(replies[0]!.body, /unsubscribed/);

    await carrier.listener!.onInbound({ carrier: 'fake', from: customer, to: own, body: 'START', receivedAt: new Date(), carrierMessageId: 'start-1', sandbox: true });
    const allowed = await call('POST', '/v1/messages', { to: customer, from: own, body: 'welcome back' });
    await waitForStatus(call, allowed.body.id, 'delivered');
    assert.equal((await eventsOfType(accountId, 'message.received')).length, 2);
  });

  it('STOPALL opts out of every sender of the account; HELP is answered with the help text', async () => {
    const { call, accountId, sender } = await newClient();
    const own = freshNumber();
    await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: false, number: own, helpText: 'Acme support: call 555-0100.' });
    const customer = freshNumber();
    await carrier.listener!.onInbound({ carrier: 'fake', from: customer, to: own, body: 'help', receivedAt: new Date(), carrierMessageId: 'help-1', sandbox: true });
    const helpReply = await call('GET', `/v1/messages?to=${encodeURIComponent(customer)}`);
    assert.equal(helpReply.body.data[0].body, 'Acme support: call 555-0100.');
    await waitForStatus(call, helpReply.body.data[0].id, 'delivered');

    await carrier.listener!.onInbound({ carrier: 'fake', from: customer, to: own, body: 'STOPALL', receivedAt: new Date(), carrierMessageId: 'stopall-1', sandbox: true });
    const blocked = await call('POST', '/v1/messages', { to: customer, from: sender, body: 'promo' });
    assert.equal((await waitForStatus(call, blocked.body.id, 'failed')).error_code, 'recipient_opted_out');
    assert.equal((await eventsOfType(accountId, 'message.received')).length, 2);
  });
});
