import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiClient } from '../support/http';
import { FakeSmsCarrier } from '../support/sms-messages-fake-carrier';
import { useTestStack } from '../support/stack';

/**
 * Canceling a batch mid-way, with no worker running: the batch waits in the SMS outbox, one round of the
 * batch workflow's activity (the same service call) sends part of it, then the cancel takes the rest.
 */
const carrier = new FakeSmsCarrier();
const ctx = useTestStack({ label: __filename, worker: false, smsCarriers: carrier });

let numberSeq = 0;
const freshNumber = () => `+1415555${String(7000 + ++numberSeq).padStart(4, '0')}`;

describe('message batch cancel', () => {
  it('cancels what no carrier got yet, leaves what went out, counts both and completes', async () => {
    const account = await ctx.stack.newAccount();
    await ctx.stack.services.senders.registerSender({ accountId: account.accountId, livemode: false, sender: 'Cancel' });
    const call = apiClient(ctx.stack.baseUrl, account.apiKey);
    const recipients = Array.from({ length: 6 }, () => ({ to: freshNumber() }));
    for (const r of recipients) carrier.behaviors.set(r.to, 'silent');
    const created = await call('POST', '/v1/message_batches', { from: 'Cancel', body: 'Sale', recipients });
    assert.equal(created.status, 202, JSON.stringify(created.body));

    const ids = (await call('GET', `/v1/message_batches/${created.body.id}/messages`)).body.data.map((m: any) => m.id);
    const firstRound = ids.slice(0, 2);
    const round = await ctx.stack.services.messageRounds.sendRound({ messages: firstRound.map((messageId: string) => ({ messageId })) });
    assert.deepEqual(Object.values(round.outcomes), [{ status: 'sent' }, { status: 'sent' }]);

    const canceled = await call('POST', `/v1/message_batches/${created.body.id}/cancel`);
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    assert.ok(canceled.body.canceled_at);
    assert.deepEqual(canceled.body.counts, { queued: 0, sending: 0, sent: 2, delivered: 0, undelivered: 0, failed: 0, opted_out: 0, canceled: 4 });
    const updates = await ctx.stack.database.db.selectFrom('events').select('data').where('account_id', '=', account.accountId).where('type', '=', 'message.updated').execute();
    assert.equal(updates.filter((e) => (e.data as any).status === 'canceled').length, 4, 'message.updated for each canceled message');

    // A later round of the batch's workflow leaves the canceled ones alone.
    const later = await ctx.stack.services.messageRounds.sendRound({ messages: ids.slice(2).map((messageId: string) => ({ messageId })) });
    assert.ok(Object.values(later.outcomes).every((o) => 'status' in o && o.status === 'canceled'));
    assert.equal(carrier.submitted.length, 2, 'only the first round went out');

    // Not complete while two wait for their receipts; complete once they are delivered.
    await ctx.stack.services.messageBatches.completeFinishedBatches();
    assert.equal((await call('GET', `/v1/message_batches/${created.body.id}`)).body.status, 'processing');
    await carrier.start(ctx.stack.services.inboundSms);
    for (const id of (await ctx.stack.database.db.selectFrom('messages').select('carrier_message_ids').where('id', 'in', firstRound).execute()).map((m) => m.carrier_message_ids![0]!)) {
      await carrier.sendReceipt(id, 'delivered');
    }
    assert.equal(await ctx.stack.services.messageBatches.completeFinishedBatches(), 1);
    const done = (await call('GET', `/v1/message_batches/${created.body.id}`)).body;
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.counts.delivered, done.counts.canceled], [2, 4]);
    assert.equal((await call('POST', `/v1/message_batches/${created.body.id}/cancel`)).body.counts.canceled, 4, 'canceling again changes nothing');
  });
});
