import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createServices, type Services } from '../../src/app/container';
import { CarrierError, type CarrierListener, type SmsCarriers, type SubmitJournal, type SubmitSmsRequest, type SubmitSmsResult } from '../../src/sms/carrier';
import { createCarrierRouter } from '../../src/sms/carrier-registry';
import { loadConfig } from '../../src/config/env';
import { MessageRepo } from '../../src/sms/message.repo';
import { silentLogger } from '../../src/observability/logger';
import type { WorkflowGateway } from '../../src/temporal/workflow-gateway';
import { buildTestConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { pollUntil } from '../support/poll';
import { SmscSimulator } from '../support/smsc-simulator';

/** SMS submitted once: queued submits with a deadline, a journal of attempts, uncertain submits waiting. */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const request = (to: string, body: string): SubmitSmsRequest => ({ messageId: `msg_${Math.random().toString(36).slice(2)}`, to, from: 'ACME', body, requestReceipt: true, livemode: true });
const listener: CarrierListener = { onReceipt: async () => undefined, onInbound: async () => undefined };

async function simulator(options: ConstructorParameters<typeof SmscSimulator>[0] = {}) {
  const sim = new SmscSimulator(options);
  await sim.start();
  cleanups.push(() => sim.stop());
  return sim;
}

describe('carrier router and SMPP client', () => {
  it('never sends a submit still queued in the client after the router failed over', async () => {
    const slow = await simulator({ answerSubmits: false });
    const other = await simulator();
    const config = loadConfig({
      SMS_CARRIERS: JSON.stringify([
        { name: 'slow', type: 'smpp', host: '127.0.0.1', port: slow.port, system_id: 'test', password: 'secret', prefixes: ['+'], priority: 1, window: 1, response_timeout_ms: 1500 },
        { name: 'other', type: 'smpp', host: '127.0.0.1', port: other.port, system_id: 'test', password: 'secret', prefixes: ['+'], priority: 2 },
      ]),
    });
    const router = createCarrierRouter(config, silentLogger(), { attemptTimeoutMs: 300 });
    cleanups.push(() => router.stop());
    await router.start(listener);
    await pollUntil('both carriers bind', () => slow.boundSessions > 0 && other.boundSessions > 0);

    // The first holds the only window slot and is never answered; the second waits behind it.
    const first = router.submit(request('+447700900001', 'first')).catch((e: unknown) => e);
    await pollUntil('the first submit reaches the slow SMSC', () => slow.submits.length === 1);
    const second = await router.submit(request('+447700900002', 'second'));
    assert.equal(second.carrier, 'other', 'failed over once its deadline passed in the queue');
    const err = (await first) as CarrierError;
    assert.ok(err instanceof CarrierError);
    assert.deepEqual([err.code, err.progress.sent], ['submit_uncertain', 'unknown'], 'no failover for a submit that went out unanswered');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(slow.submits.map((s) => s.text), ['first'], 'the queued second submit never left');
    assert.deepEqual(other.submits.map((s) => s.text), ['second']);
  });

  it('resumes a partial submit with the remaining parts only, under the same reference', async () => {
    const sim = await simulator();
    const config = loadConfig({
      SMS_CARRIERS: JSON.stringify([{ name: 'smsc', type: 'smpp', host: '127.0.0.1', port: sim.port, system_id: 'test', password: 'secret' }]),
    });
    const router = createCarrierRouter(config, silentLogger());
    cleanups.push(() => router.stop());
    await router.start(listener);
    await pollUntil('bind', () => sim.boundSessions > 0);
    const body = 'x'.repeat(300); // two parts
    const result = await router.submit({ ...request('+447700900001', body), resume: { carrier: 'smsc', acceptedIds: ['earlier-1'], concatRef: 42 } });
    assert.equal(sim.submits.length, 1, 'only the second part went out');
    assert.deepEqual(sim.submits[0]!.concat, { ref: 42, total: 2, seq: 2 });
    assert.equal(result.carrierMessageIds[0], 'earlier-1');
    assert.equal(result.carrierMessageIds.length, 2);
  });
});

describe('messaging: a submit decided from its journal', () => {
  let database: TestDatabase;
  let services: Services;
  let onSubmit: (req: SubmitSmsRequest, journal?: SubmitJournal) => Promise<SubmitSmsResult>;
  const submits: SubmitSmsRequest[] = [];
  const carriers: SmsCarriers = {
    submit: (req, journal) => {
      submits.push(req);
      return onSubmit(req, journal);
    },
  };
  const gateway = { start: async () => true, signalIfRunning: async () => false } as unknown as WorkflowGateway;

  before(async () => {
    database = await createTestDatabase(__filename);
    services = createServices({ config: buildTestConfig(), db: database.db, workflows: gateway, log: silentLogger(), smsCarriers: carriers });
  });
  after(async () => {
    await database?.destroy();
  });

  async function queued(body = 'hello') {
    const account = await services.accounts.createAccount({ name: 'once' });
    const id = `msg_once_${Math.random().toString(36).slice(2)}`;
    await new MessageRepo().insertMessage(database.db, {
      id, account_id: account.id, livemode: false, direction: 'outbound', type: 'transactional', origin: 'api', to: '+447700900001', from: 'Acme',
      body, status: 'queued', segments: body.length > 160 ? 2 : 1, encoding: 'GSM-7', country: 'GB', price: null, price_currency: null,
      error_code: null, error_message: null, reference: null, status_callback: null, send_at: null, held_until: null,
      carrier: null, carrier_message_ids: null,
    });
    submits.length = 0;
    return id;
  }
  const journalOf = (id: string) => database.db.selectFrom('sms_submit_attempts').selectAll().where('message_id', '=', id).orderBy('attempt').execute();
  const uncertain = async (_req: SubmitSmsRequest, journal?: SubmitJournal): Promise<SubmitSmsResult> => {
    await journal?.begin({ carrier: 'c1' });
    const progress = { sent: 'unknown' as const, acceptedIds: [], concatRef: null };
    await journal?.fail({ carrier: 'c1', code: 'carrier_timeout', ...progress });
    throw new CarrierError('no answer', 'c1', 'submit_uncertain', true, progress);
  };

  it('waits instead of resending a submit that went out unanswered; its receipt settles it', async () => {
    const id = await queued();
    onSubmit = uncertain;
    const first = await services.messageDelivery.sendMessage({ messageId: id });
    assert.equal(first.status, 'sending');
    assert.ok(first.uncertainWaitSeconds! > 0);
    assert.deepEqual((await journalOf(id)).map((a) => [a.carrier, a.state]), [['c1', 'uncertain']]);

    // The carrier did take it: its receipt names an id we never got, for this handset.
    await services.inboundSms.onReceipt({ carrier: 'c1', carrierMessageId: 'late-1', handset: '+447700900001', status: 'delivered', at: new Date() });
    const after = await services.messageDelivery.sendMessage({ messageId: id, afterUncertainWait: true });
    assert.equal(after.status, 'delivered');
    assert.equal(submits.length, 1, 'submitted once');
    assert.deepEqual((await journalOf(id)).map((a) => a.state), ['accepted']);
  });

  it('submits again only after the wait brought no receipt', async () => {
    const id = await queued();
    onSubmit = uncertain;
    await services.messageDelivery.sendMessage({ messageId: id });
    const retried = await services.messageDelivery.sendMessage({ messageId: id });
    assert.ok(retried.uncertainWaitSeconds, 'an activity retry before the wait does not submit');
    assert.equal(submits.length, 1);
    onSubmit = async (_req, journal) => {
      await journal?.begin({ carrier: 'c2' });
      return { carrier: 'c2', carrierMessageIds: ['ok-1'] };
    };
    const sent = await services.messageDelivery.sendMessage({ messageId: id, afterUncertainWait: true });
    assert.equal(sent.status, 'sent');
    assert.deepEqual((await journalOf(id)).map((a) => [a.carrier, a.state]), [['c1', 'abandoned'], ['c2', 'accepted']]);
  });

  it('treats a journal row left submitting (the worker died mid-submit) as uncertain', async () => {
    const id = await queued();
    onSubmit = async (_req, journal) => {
      await journal?.begin({ carrier: 'c1' });
      throw new Error('worker killed'); // stands for a process that never came back from the carrier
    };
    await assert.rejects(services.messageDelivery.sendMessage({ messageId: id }));
    const retry = await services.messageDelivery.sendMessage({ messageId: id });
    assert.ok(retry.uncertainWaitSeconds);
    assert.equal(submits.length, 1);
  });

  it('resumes a partial submit on the same carrier with the accepted parts', async () => {
    const id = await queued('y'.repeat(300));
    onSubmit = async (_req, journal) => {
      await journal?.begin({ carrier: 'c1' });
      const progress = { sent: 'partial' as const, acceptedIds: ['p1'], concatRef: 7 };
      await journal?.fail({ carrier: 'c1', code: 'carrier_throttled', ...progress });
      throw new CarrierError('part 2 throttled', 'c1', 'submit_partial', true, progress);
    };
    await assert.rejects(services.messageDelivery.sendMessage({ messageId: id }), /throttled/);
    onSubmit = async (req, journal) => {
      await journal?.begin({ carrier: 'c1' });
      return { carrier: 'c1', carrierMessageIds: [...req.resume!.acceptedIds, 'p2'] };
    };
    const sent = await services.messageDelivery.sendMessage({ messageId: id });
    assert.equal(sent.status, 'sent');
    assert.deepEqual(submits[1]!.resume, { carrier: 'c1', acceptedIds: ['p1'], concatRef: 7 });
    const m = await new MessageRepo().getMessage(database.db, id);
    assert.deepEqual(m!.carrier_message_ids, ['p1', 'p2']);
  });
});
