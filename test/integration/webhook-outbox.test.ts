import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { sql } from 'kysely';
import Stripe from 'stripe';
import { verifySignatureHeader } from '../../src/domain/signature';
import { buildTestConfig } from '../support/config';
import { derivedId, IdPrefix } from '../../src/domain/ids';
import { MessageRepo } from '../../src/sms/message.repo';
import { EventsService } from '../../src/webhooks/events.service';
import { WebhookOutboxRepo } from '../../src/webhooks/webhook-outbox.repo';
import { webhookDeliveryWorkflowId } from '../../workflows/shared/webhooks.contracts';
import { startReceiver } from '../support/receiver';
import { useTestStack } from '../support/stack';

// A long sweep: deliveries here must be woken by the commit (in process or LISTEN/NOTIFY), not found later.
// A short lease (renewed every 300 ms while a claim is held): a claim outlasting it must stay held.
const dispatch = { ...buildTestConfig().webhookDispatch, concurrency: 16, perEndpoint: 4, sweepMs: 60_000, leaseMs: 900 };
const ctx = useTestStack({ label: __filename, config: { webhookDispatch: dispatch } });

const db = () => ctx.stack.database.db;
const deliveriesOf = (eventId: string) => db().selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute();

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function endpointFor(accountId: string, url: string) {
  const principal = { accountId, keyId: 'test', mode: 'test' as const };
  return ctx.stack.services.webhookEndpoints.createEndpoint({ principal, url, events: ['*'] });
}

describe('webhook endpoint secret rotation', () => {
  it('signs with the new and the old secret during the grace period, then with the new one alone', async () => {
    const { accountId } = await ctx.stack.newAccount();
    const receiver = await startReceiver();
    const stripe = new Stripe('sk_test_unused');
    try {
      const endpoint = await endpointFor(accountId, `${receiver.url}/hook`);
      const rotated = await ctx.stack.services.webhookEndpoints.rotateSecret({ accountId, livemode: false, endpointId: endpoint.id });
      assert.notEqual(rotated.signing_secret, endpoint.signing_secret);
      assert.ok(Math.abs(Date.parse(rotated.previous_secret_expires_at!) - (Date.now() + 24 * 3600 * 1000)) < 60_000, 'default grace period is 24 h');
      const received = async (n: number) => {
        await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: `msg_rot${n}` } });
        await receiver.waitFor(n, 5000);
        const req = receiver.requests[n - 1]!;
        return { header: String(req.headers['service-signature']), body: req.rawBody.toString('utf8') };
      };
      const during = await received(1);
      assert.equal(during.header.match(/v1=/g)?.length, 2, during.header);
      for (const secret of [endpoint.signing_secret!, rotated.signing_secret!]) {
        assert.ok(verifySignatureHeader(secret, during.body, during.header));
        assert.doesNotThrow(() => stripe.webhooks.constructEvent(during.body, during.header, secret, 300));
      }

      const ended = await ctx.stack.services.webhookEndpoints.rotateSecret({ accountId, livemode: false, endpointId: endpoint.id, gracePeriodSeconds: 0 });
      assert.equal(ended.previous_secret_expires_at, null);
      const after = await received(2);
      assert.equal(after.header.match(/v1=/g)?.length, 1, after.header);
      assert.ok(verifySignatureHeader(ended.signing_secret!, after.body, after.header));
      assert.ok(!verifySignatureHeader(rotated.signing_secret!, after.body, after.header));
    } finally {
      await receiver.close();
    }
  });
});

describe('webhook outbox and dispatcher', () => {
  it('makes the first attempt itself: a delivered event never starts a workflow', async () => {
    const { accountId } = await ctx.stack.newAccount();
    const receiver = await startReceiver();
    const endpoint = await endpointFor(accountId, `${receiver.url}/hook`);
    const event = await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_a' } });
    await receiver.waitFor(1, 5000);
    const [d] = await until('the delivery recorded', async () => {
      const rows = await deliveriesOf(event.id);
      return rows[0]?.status === 'delivered' && rows;
    });
    assert.equal(d!.id, derivedId(IdPrefix.webhookDelivery, event.id, endpoint.id), 'the id derived in SQL is the one derived in JS');
    assert.equal(d!.attempt_count, 1);
    assert.ok(d!.dispatched_at, 'out of the outbox');
    const attempts = await db().selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', d!.id).execute();
    assert.deepEqual(attempts.map((a) => [a.attempt, a.status_code, a.outcome]), [[1, 200, 'delivered']]);
    await assert.rejects(ctx.env.client.workflow.getHandle(webhookDeliveryWorkflowId(d!.id)).describe(), WorkflowNotFoundError);
    await receiver.close();
  });

  it('is woken by LISTEN/NOTIFY for an event emitted by another process', async () => {
    const { accountId } = await ctx.stack.newAccount();
    const receiver = await startReceiver();
    await endpointFor(accountId, `${receiver.url}/hook`);
    // An API process's EventsService: nothing in this process hears its commits.
    const apiEvents = new EventsService({ db: db() });
    await apiEvents.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_b' } });
    await receiver.waitFor(1, 5000);
    await receiver.close();
  });

  it('loses no event when the database fails between the state change and its event', async () => {
    const { accountId } = await ctx.stack.newAccount();
    const repo = new MessageRepo();
    const id = `msg_outbox_${Date.now()}`;
    await repo.insertMessage(db(), {
      id, account_id: accountId, livemode: false, direction: 'outbound', type: 'transactional', origin: 'api', to: '+14155550123', from: 'Acme',
      body: 'x', status: 'sent', segments: 1, encoding: 'GSM-7', country: 'US', price: null, price_currency: null, error_code: null,
      error_message: null, reference: null, status_callback: null, send_at: null, held_until: null, carrier: 'c1', carrier_message_ids: null,
    });
    await db().insertInto('message_parts').values({ carrier: 'c1', carrier_message_id: `${id}-1`, message_id: id, part: 0 }).execute();
    // The next event insert fails once (a sequence is not rolled back with the failing transaction).
    await sql`create sequence blink_seq`.execute(db());
    await sql`create function blink() returns trigger language plpgsql as $$
      begin if nextval('blink_seq') = 1 then raise exception 'database blinked'; end if; return new; end $$`.execute(db());
    await sql`create trigger blink before insert on events for each row execute function blink()`.execute(db());
    try {
      const receipt = { carrier: 'c1', carrierMessageId: `${id}-1`, status: 'delivered' as const, at: new Date() };
      // The first try's transaction (state change and event) rolls back whole; onReceipt tries again
      // before it would ask the SMSC to redeliver, and the second try stores both.
      await ctx.stack.services.inboundSms.onReceipt(receipt);
      assert.equal(Number((await sql<{ n: string }>`select last_value as n from blink_seq`.execute(db())).rows[0]!.n), 2, 'the event insert failed once and was tried again');
    } finally {
      await sql`drop trigger blink on events`.execute(db());
    }
    const m = await repo.getMessage(db(), id);
    assert.equal(m!.status, 'delivered');
    const event = await db().selectFrom('events').selectAll().where('id', '=', derivedId(IdPrefix.event, id, 'message.updated', 'delivered')).executeTakeFirst();
    assert.ok(event, 'message.updated for delivered was stored');
  });

  it('keeps a slow endpoint from holding every slot: another account is served at once', async () => {
    const slow = await ctx.stack.newAccount();
    const fast = await ctx.stack.newAccount();
    const slowReceiver = await startReceiver(() => ({ status: 200, delayMs: 1500 }));
    const fastReceiver = await startReceiver();
    await endpointFor(slow.accountId, `${slowReceiver.url}/slow`);
    await endpointFor(fast.accountId, `${fastReceiver.url}/fast`);
    for (let i = 0; i < 40; i++) await ctx.stack.services.events.emit({ accountId: slow.accountId, livemode: false, type: 'message.updated', data: { i } });
    await slowReceiver.waitFor(dispatch.perEndpoint, 5000);
    const started = Date.now();
    for (let i = 0; i < 5; i++) await ctx.stack.services.events.emit({ accountId: fast.accountId, livemode: false, type: 'message.updated', data: { i } });
    await fastReceiver.waitFor(5, 5000);
    assert.ok(Date.now() - started < 1000, `fast account served in ${Date.now() - started} ms`);
    assert.ok(ctx.stack.services.webhookDispatcher.load.active <= dispatch.concurrency);
    // The slow endpoint never had more than perEndpoint requests open at once.
    const open = slowReceiver.requests.map((r) => r.receivedAt);
    const maxOpen = Math.max(...open.map((t) => open.filter((u) => u <= t && u > t - 1500).length));
    assert.ok(maxOpen <= dispatch.perEndpoint, `slow endpoint had ${maxOpen} open`);
    await fastReceiver.close();
    await slowReceiver.close();
  });

  it('takes over the claim of a dispatcher that died before its attempt', async () => {
    const { accountId } = await ctx.stack.newAccount();
    const receiver = await startReceiver();
    await endpointFor(accountId, `${receiver.url}/hook`);
    const outbox = new WebhookOutboxRepo();
    const event = await ctx.stack.services.events.transaction(async (tx) => {
      const e = await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_c' } }, { tx });
      // Another dispatcher claims it in the same instant and dies.
      const claimed = await outbox.claimDeliveries(tx, { limit: 100, perAccount: 100, leaseMs: 1500, excludeEndpointIds: [], excludeUrls: [] });
      assert.equal(claimed.filter((d) => d.event_id === e.id).length, 1);
      await outbox.releaseClaims(tx, claimed.filter((d) => d.event_id !== e.id).map((d) => d.id));
      return e;
    });
    await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_d' } });
    await receiver.waitFor(1, 5000);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.requests.length, 1, 'held by the dead claim until it expires');
    // Any wake-up after that (the sweep, another commit) takes the expired claim.
    await new Promise((r) => setTimeout(r, 1200));
    await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_e' } });
    await receiver.waitFor(3, 5000);
    const [d] = await deliveriesOf(event.id);
    await until('delivered', async () => (await deliveriesOf(event.id))[0]?.status === 'delivered');
    assert.ok(d);
    await receiver.close();
  });

  it('renews the claim of an attempt that outlasts its lease: no other dispatcher takes it meanwhile', async () => {
    const { accountId } = await ctx.stack.newAccount();
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 2 * dispatch.leaseMs }));
    await endpointFor(accountId, `${receiver.url}/hook`);
    const event = await ctx.stack.services.events.emit({ accountId, livemode: false, type: 'message.updated', data: { id: 'msg_f' } });
    await receiver.waitFor(1, 5000);
    // Another dispatcher tries all along the attempt (longer than the lease): the claim is never free.
    const outbox = new WebhookOutboxRepo();
    const taken: string[] = [];
    const answered = until('the slow answer recorded', async () => (await deliveriesOf(event.id))[0]?.status === 'delivered');
    let settled = false;
    void answered.then(() => (settled = true), () => (settled = true));
    while (!settled) {
      const claimed = await outbox.claimDeliveries(db(), { limit: 100, perAccount: 100, leaseMs: 60_000, excludeEndpointIds: [], excludeUrls: [] });
      taken.push(...claimed.filter((d) => d.event_id === event.id).map((d) => d.id));
      await outbox.releaseClaims(db(), claimed.filter((d) => d.event_id !== event.id).map((d) => d.id));
      await new Promise((r) => setTimeout(r, 50));
    }
    await answered;
    assert.deepEqual(taken, []);
    assert.equal(receiver.requests.length, 1);
    await receiver.close();
  });
});

describe('webhook outbox: events and their deliveries in one statement', () => {
  it('queues one delivery per target of each kind, and a retried insert queues nothing', async () => {
    const { accountId } = await ctx.stack.newAccount();
    const receiver = await startReceiver();
    const principal = { accountId, keyId: 'test', mode: 'test' as const };
    const create = (path: string, events: string[]) => ctx.stack.services.webhookEndpoints.createEndpoint({ principal, url: `${receiver.url}/${path}`, events });
    const all = await create('all', ['*']);
    const updates = await create('updates', ['message.updated']);
    const calls = await create('calls', ['call.completed']);
    const disabled = await create('disabled', ['*']);
    await ctx.stack.services.webhookEndpoints.updateEndpoint({ principal, endpointId: disabled.id, patch: { enabled: false } });
    const outbox = new WebhookOutboxRepo();
    const event = (n: number, livemode = false) => ({ id: `evt_outbox${n}_${accountId}`, account_id: accountId, livemode, type: 'message.updated', data: { id: `msg_${n}`, body: 'héllo ✓ 😀' } });
    const targetsOf = async (eventId: string) => (await deliveriesOf(eventId)).map((d) => d.endpoint_id ?? d.url).sort();

    // The account's enabled endpoints of the event's mode subscribed to its type.
    const first = await outbox.insertEventWithDeliveries(db(), event(1), { kind: 'subscribed' });
    assert.equal(first.inserted, true);
    assert.equal(first.deliveries, 2);
    assert.deepEqual(first.event.data, event(1).data);
    assert.ok(first.event.created_at instanceof Date);
    assert.deepEqual(await targetsOf(event(1).id), [all.id, updates.id].sort());
    // A callback URL alone.
    const callbackUrl = `${receiver.url}/callback`;
    assert.equal((await outbox.insertEventWithDeliveries(db(), event(2), { kind: 'callback', url: callbackUrl })).deliveries, 1);
    assert.deepEqual(await targetsOf(event(2).id), [callbackUrl]);
    // Named endpoints, subscribed or not, enabled or not; of the event's mode only.
    assert.equal((await outbox.insertEventWithDeliveries(db(), event(3), { kind: 'endpoints', endpointIds: [calls.id, disabled.id] })).deliveries, 2);
    assert.deepEqual(await targetsOf(event(3).id), [calls.id, disabled.id].sort());
    assert.equal((await outbox.insertEventWithDeliveries(db(), event(4, true), { kind: 'endpoints', endpointIds: [all.id] })).deliveries, 0);
    assert.equal((await outbox.insertEventWithDeliveries(db(), event(5, true), { kind: 'subscribed' })).deliveries, 0);

    // A retried insert answers the stored event and queues nothing more.
    const again = await outbox.insertEventWithDeliveries(db(), { ...event(1), data: { id: 'msg_other' } }, { kind: 'callback', url: callbackUrl });
    assert.equal(again.inserted, false);
    assert.equal(again.deliveries, 0);
    assert.deepEqual(again.event.data, event(1).data);
    assert.deepEqual(await targetsOf(event(1).id), [all.id, updates.id].sort());

    // Many at once: each to its callback URL, else the subscribed endpoints; stored ones skipped.
    const many = await outbox.insertEventsWithDeliveries(db(), [
      { ...event(6), callback_url: null },
      { ...event(7), callback_url: callbackUrl },
      { ...event(1), callback_url: null },
    ]);
    assert.deepEqual(many, { insertedByType: { 'message.updated': 2 }, deliveries: 3 });
    assert.deepEqual(await targetsOf(event(6).id), [all.id, updates.id].sort());
    assert.deepEqual(await targetsOf(event(7).id), [callbackUrl]);
    assert.deepEqual(await targetsOf(event(1).id), [all.id, updates.id].sort());
    await receiver.close();
  });
});
