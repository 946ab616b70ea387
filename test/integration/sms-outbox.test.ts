import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/observability/logger';
import { DEFAULT_SMS_DISPATCH, SmsDispatcher } from '../../src/sms/sms-dispatcher';
import { SmsOutboxRepo } from '../../src/sms/sms-outbox.repo';
import { smsBatchWorkflowId, smsDeliveryWorkflowId } from '../../workflows/shared/sms.contracts';
import { apiClient } from '../support/http';
import { pollUntil } from '../support/poll';
import { useTestStack } from '../support/stack';

/**
 * The SMS outbox without a running worker (no dispatcher in the stack): the API commits messages and
 * answers; a dispatcher started here puts each message in exactly one workflow, including after another
 * dispatcher claimed rows and died.
 */
const ctx = useTestStack({ label: __filename, worker: false });
let phoneSeq = 0;
const freshNumber = () => `+1415555${String(2000 + ++phoneSeq).padStart(4, '0')}`;

async function newSender(name: string) {
  const account = await ctx.stack.newAccount();
  await ctx.stack.services.senders.registerSender({ accountId: account.accountId, livemode: false, sender: name });
  return apiClient(ctx.stack.baseUrl, account.apiKey);
}

function startDispatcher(options: Partial<typeof DEFAULT_SMS_DISPATCH> = {}) {
  const dispatcher = new SmsDispatcher({
    db: ctx.stack.database.db,
    workflows: ctx.stack.gateway,
    log: silentLogger(),
    options: { ...DEFAULT_SMS_DISPATCH, receiptTimeoutSeconds: 60, ...options },
  });
  return { dispatcher, started: dispatcher.start({ listen: ctx.stack.database.listen }) };
}

const outboxSize = () => new SmsOutboxRepo().countWaiting(ctx.stack.database.db);

/** The message ids in the batch workflow named after `firstId` (its input). */
async function batchMembers(firstId: string): Promise<string[]> {
  const history = await ctx.env.client.workflow.getHandle(smsBatchWorkflowId(firstId)).fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const payload = started?.input?.payloads?.[0]?.data;
  return (JSON.parse(Buffer.from(payload!).toString()) as { messageIds: string[] }).messageIds;
}

describe('SMS outbox', () => {
  it('accepts messages with no worker running; a dispatcher then puts each in exactly one batch, 64 at most, in order', async () => {
    const call = await newSender('Outbox');
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) {
      const res = await call('POST', '/v1/messages', { to: freshNumber(), from: 'Outbox', body: `outbox ${i}` });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.status, 'queued');
      ids.push(res.body.id);
    }
    const scheduled = await call('POST', '/v1/messages', { to: freshNumber(), from: 'Outbox', body: 'later', send_at: new Date(Date.now() + 3_600_000).toISOString() });
    assert.equal(scheduled.status, 201);
    assert.equal(await outboxSize(), 151, 'everything waits in the outbox');

    const { dispatcher, started } = startDispatcher();
    await started;
    try {
      await pollUntil('the outbox to empty', async () => (await outboxSize()) === 0);
      // Batches of 64, 64 and 22, named after their first message, in the order accepted.
      const batches = [await batchMembers(ids[0]!), await batchMembers(ids[64]!), await batchMembers(ids[128]!)];
      assert.deepEqual(batches.map((b) => b.length), [64, 64, 22]);
      assert.deepEqual(batches.flat(), ids, 'every message in exactly one batch, in order');
      const own = await ctx.env.client.workflow.getHandle(smsDeliveryWorkflowId(scheduled.body.id)).describe();
      assert.equal(own.type, 'smsDeliveryWorkflow', 'a scheduled message has a delivery workflow of its own');
    } finally {
      await dispatcher.stop();
    }
  });

  it('takes over the rows of a dispatcher that claimed them and died, under the same workflow name', async () => {
    const call = await newSender('Takeover');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call('POST', '/v1/messages', { to: freshNumber(), from: 'Takeover', body: `takeover ${i}` })).body.id);
    // A dispatcher claims them (naming their batch after the first) and dies before starting it.
    const claimed = await new SmsOutboxRepo().claimUnclaimed(ctx.stack.database.db, {
      limit: 100,
      leaseMs: 300,
      assign: (rows) => new Map(rows.map((r) => [r.message_id, rows[0]!.message_id])),
    });
    assert.deepEqual(claimed.map((r) => r.message_id), ids);

    const { dispatcher, started } = startDispatcher({ sweepMs: 100 });
    await started;
    try {
      await pollUntil('the expired claim to be taken over', async () => (await outboxSize()) === 0);
      assert.deepEqual(await batchMembers(ids[0]!), ids, 'the batch the dead dispatcher named, with all its messages');
    } finally {
      await dispatcher.stop();
    }
  });
});
