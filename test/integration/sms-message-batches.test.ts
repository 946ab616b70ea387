import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiClient, type ApiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { FakeSmsCarrier } from '../support/sms-messages-fake-carrier';
import { useTestStack } from '../support/stack';

/** POST /v1/message_batches through the whole stack (API, dispatcher, batch workflows, a fake carrier). */
const carrier = new FakeSmsCarrier();
const ctx = useTestStack({ label: __filename, smsCarriers: carrier });

let numberSeq = 0;
const freshNumber = () => `+1415555${String(5000 + ++numberSeq).padStart(4, '0')}`;

let senderSeq = 0;
async function newClient() {
  const account = await ctx.stack.newAccount();
  const sender = `Batch${++senderSeq}`;
  await ctx.stack.services.senders.registerSender({ accountId: account.accountId, livemode: false, sender });
  return { ...account, sender, call: apiClient(ctx.stack.baseUrl, account.apiKey) };
}

const messagesOf = (accountId: string) => ctx.stack.database.db.selectFrom('messages').selectAll().where('account_id', '=', accountId).execute();
const eventsOfType = (accountId: string, type: string) =>
  ctx.stack.database.db.selectFrom('events').selectAll().where('account_id', '=', accountId).where('type', '=', type).execute();

async function waitForCompleted(call: ApiClient, batchId: string) {
  let last: any;
  return pollUntil(`batch ${batchId} to complete`, async () => {
    last = (await call('GET', `/v1/message_batches/${batchId}`)).body;
    return last.status === 'completed' && last;
  }, { detail: () => JSON.stringify(last?.counts) });
}

describe('message batches', () => {
  it('refuses a batch with bad recipients, naming each by index, and queues nothing', async () => {
    const { call, accountId, sender } = await newClient();
    const res = await call('POST', '/v1/message_batches', {
      from: sender,
      body: 'Hello',
      recipients: [{ to: freshNumber() }, { to: '12345' }, { to: freshNumber() }, { to: '+1415000000' }],
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'parameter_invalid');
    assert.equal(res.body.error.param, 'recipients.1.to');
    assert.match(res.body.error.message, /^2 invalid recipients/);
    assert.match(res.body.error.message, /recipients\.1\.to/);
    assert.match(res.body.error.message, /recipients\.3\.to/);
    assert.deepEqual(await messagesOf(accountId), [], 'nothing queued');
  });

  it('refuses a recipient without a value for a placeholder (not an empty string)', async () => {
    const { call, accountId, sender } = await newClient();
    const res = await call('POST', '/v1/message_batches', {
      from: sender,
      body: 'Hi {{ name }}, your code is {{code}}',
      recipients: [{ to: freshNumber(), variables: { name: 'Ann', code: '1' } }, { to: freshNumber(), variables: { name: 'Bob' } }],
    });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'parameter_unprocessable');
    assert.equal(res.body.error.param, 'recipients.1.variables');
    assert.match(res.body.error.message, /no value for \{\{code\}\}/);
    assert.deepEqual(await messagesOf(accountId), []);
  });

  it('with skip_invalid queues the valid recipients (templated, with their references), lists the others, and completes', async () => {
    const { call, accountId, sender } = await newClient();
    const [a, b] = [freshNumber(), freshNumber()];
    const res = await call('POST', '/v1/message_batches', {
      from: sender,
      body: 'Hi {{name}}',
      skip_invalid: true,
      recipients: [{ to: a, variables: { name: 'Ann' }, reference: 'r-a' }, { to: 'nope', variables: { name: 'X' } }, { to: b, variables: { name: 'Bob' } }, { to: freshNumber() }],
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const batch = res.body;
    assert.match(batch.id, /^mbat_/);
    assert.deepEqual([batch.object, batch.status, batch.recipients, batch.livemode], ['message_batch', 'processing', 2, false]);
    assert.deepEqual(batch.rejected.map((r: any) => [r.index, r.param, r.code]), [[1, 'recipients.1.to', 'parameter_invalid'], [3, 'recipients.3.variables', 'parameter_unprocessable']]);
    assert.equal(batch.counts.queued, 2);

    const done = await waitForCompleted(call, batch.id);
    assert.deepEqual(done.counts, { queued: 0, sending: 0, sent: 0, delivered: 2, undelivered: 0, failed: 0, opted_out: 0, canceled: 0 });
    const listed = await call('GET', `/v1/message_batches/${batch.id}/messages?limit=1`);
    assert.equal(listed.status, 200);
    assert.equal(listed.body.data.length, 1);
    assert.equal(listed.body.has_more, true);
    const all = (await call('GET', `/v1/message_batches/${batch.id}/messages`)).body.data;
    const byTo = Object.fromEntries(all.map((m: any) => [m.to, m]));
    assert.deepEqual([byTo[a].body, byTo[a].reference, byTo[a].message_batch_id], ['Hi Ann', 'r-a', batch.id]);
    assert.deepEqual([byTo[b].body, byTo[b].reference], ['Hi Bob', null]);
    assert.deepEqual(carrier.submitsTo(a).map((s) => s.body), ['Hi Ann'], 'sent once, rendered');

    const completed = await eventsOfType(accountId, 'message_batch.completed');
    assert.equal(completed.length, 1, 'one message_batch.completed');
    const data = completed[0]!.data as any;
    assert.deepEqual([data.id, data.status, data.counts.delivered], [batch.id, 'completed', 2]);
  });

  it('replays an Idempotency-Key with the same batch, queued once; another body under the key is refused', async () => {
    const { call, accountId, sender } = await newClient();
    const body = { from: sender, body: 'Once', recipients: [{ to: freshNumber() }, { to: freshNumber() }] };
    const first = await call('POST', '/v1/message_batches', body, { 'Idempotency-Key': 'batch-1' });
    const second = await call('POST', '/v1/message_batches', body, { 'Idempotency-Key': 'batch-1' });
    assert.equal(first.status, 202);
    assert.equal(second.status, 202);
    assert.equal(second.body.id, first.body.id);
    assert.equal((await messagesOf(accountId)).length, 2, 'the batch was queued once');
    const other = await call('POST', '/v1/message_batches', { ...body, body: 'Twice' }, { 'Idempotency-Key': 'batch-1' });
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, 'idempotency_key_reused');
  });

  it('counts recipients who opted out of the sender as opted_out, not sent', async () => {
    const { call, accountId } = await newClient();
    const own = freshNumber();
    await ctx.stack.services.phoneNumbers.provisionPhoneNumber({ accountId, livemode: false, number: own });
    const [out, stays] = [freshNumber(), freshNumber()];
    await carrier.listener!.onInbound({ carrier: 'fake', from: out, to: own, body: 'STOP', receivedAt: new Date(), carrierMessageId: `stop-batch-${out}`, sandbox: true });
    const res = await call('POST', '/v1/message_batches', { from: own, body: 'News', recipients: [{ to: out }, { to: stays }] });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const done = await waitForCompleted(call, res.body.id);
    assert.equal(done.counts.opted_out, 1);
    assert.equal(done.counts.delivered, 1);
    assert.equal(done.counts.failed, 0);
    assert.deepEqual(carrier.submitsTo(out).filter((s) => s.body === 'News'), [], 'nothing sent to the opted-out recipient');
  });

  it('keeps batches apart by account and mode (404 for another account\'s batch)', async () => {
    const { call, sender } = await newClient();
    const res = await call('POST', '/v1/message_batches', { from: sender, body: 'Mine', recipients: [{ to: freshNumber() }] });
    const stranger = await newClient();
    const seen = await stranger.call('GET', `/v1/message_batches/${res.body.id}`);
    assert.equal(seen.status, 404);
    assert.equal(seen.body.error.code, 'resource_missing');
    assert.equal((await stranger.call('POST', `/v1/message_batches/${res.body.id}/cancel`)).status, 404);
  });
});
