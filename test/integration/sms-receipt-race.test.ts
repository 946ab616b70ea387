import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createServices, type Services } from '../../src/app/container';
import type { SmsCarriers, SubmitSmsRequest, SubmitSmsResult } from '../../src/sms/carrier';
import { MessageRepo } from '../../src/sms/message.repo';
import { silentLogger } from '../../src/observability/logger';
import type { WorkflowGateway } from '../../src/temporal/workflow-gateway';
import { buildTestConfig, TEST_DATABASE_URL } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/db';

/**
 * A delivery receipt that commits concurrently with the submit it belongs to: its statement starts
 * before the submit's parts are committed (so it cannot see them), and it commits only after the send
 * step has looked for receipts (so the send step cannot see it). One side must still apply it.
 */
let database: TestDatabase;
let services: Services;
let onSubmit: (req: SubmitSmsRequest) => Promise<SubmitSmsResult>;
const carriers: SmsCarriers = { submit: (req) => onSubmit(req) };
const gateway = { start: async () => true, signalIfRunning: async () => false } as unknown as WorkflowGateway;

before(async () => {
  database = await createTestDatabase(__filename);
  services = createServices({ config: buildTestConfig(), db: database.db, workflows: gateway, log: silentLogger(), smsCarriers: carriers });
});
after(async () => {
  await database?.destroy();
});

async function queuedMessage(accountId: string, id: string) {
  await new MessageRepo().insertMessage(database.db, {
    id, account_id: accountId, livemode: false, direction: 'outbound', type: 'transactional', origin: 'api', to: '+14155550123', from: 'Acme',
    body: 'race', status: 'queued', segments: 1, encoding: 'GSM-7', country: 'US', price: null, price_currency: null,
    error_code: null, error_message: null, reference: null, status_callback: null, send_at: null, held_until: null,
    carrier: null, carrier_message_ids: null,
  });
}

async function waitForLockWait(admin: pg.Client) {
  for (let i = 0; i < 400; i++) {
    const r = await admin.query(
      `select count(*)::int n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%sms_receipts%' and pid <> pg_backend_pid()`,
    );
    if (r.rows[0].n > 0) return;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error('the receipt statement never waited');
}

describe('delivery receipt racing its submit', () => {
  it('is applied when it commits between the submit and the send step\'s look-up', async () => {
    const account = await services.accounts.createAccount({ name: 'race' });
    const messageId = 'msg_receipt_race_1';
    await queuedMessage(account.id, messageId);
    const carrierMessageId = `race-${Date.now()}`;

    // Holds the receipt's key in an open transaction: the listener's insert then waits with its
    // snapshot already taken, and goes on once this transaction rolls back.
    const blocker = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${database.schema}` });
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await blocker.connect();
    await admin.connect();
    let receiptDone: Promise<void> | undefined;
    try {
      onSubmit = async () => {
        await blocker.query('begin');
        await blocker.query(`insert into sms_receipts (carrier, carrier_message_id, status, received_at) values ('c1', $1, 'unknown', now())`, [carrierMessageId]);
        receiptDone = services.inboundSms.onReceipt({ carrier: 'c1', carrierMessageId, status: 'delivered', at: new Date() });
        await waitForLockWait(admin);
        return { carrier: 'c1', carrierMessageIds: [carrierMessageId] };
      };
      const sent = await services.messageDelivery.sendMessage({ messageId });
      assert.equal(sent.status, 'sent', 'the send step saw no receipt (it was not committed yet)');
      await blocker.query('rollback');
      await receiptDone;
    } finally {
      await blocker.end();
      await admin.end();
    }
    const m = await services.messages.getMessage({ accountId: account.id, livemode: false, messageId });
    assert.equal(m.status, 'delivered');
  });
});
