import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import {
  CarrierError,
  type CarrierListener,
  type DeliveryReceipt,
  type InboundSms,
  type SubmitSmsRequest,
  type SubmitSmsResult,
} from '../../src/sms/carrier';
import { createCarrierRouter } from '../../src/sms/carrier-registry';
import { SmppCarrierConfigSchema } from '../../src/config/sms-carriers';
import type { Clock } from '../../src/sms/carriers/rate-limiter';
import { SmppCarrier } from '../../src/sms/carriers/smpp.carrier';
import { loadConfig } from '../../src/config/env';
import { silentLogger } from '../../src/observability/logger';
import { pollUntil } from '../support/poll';
import { SMPP_STATUS, SmscSimulator, type SmscSimulatorOptions } from '../support/smsc-simulator';

/**
 * The SMPP carrier against the SMSC simulator on loopback: bind, submit, receipts, MO messages, long
 * messages, dropped connections, outages, enquire_link, error classification. No timing thresholds:
 * every wait is for an observable event (with a generous deadline).
 */

/** Waits here are for in-process events on loopback: checked every 5 ms, for at most 5 s. */
const quick = { intervalMs: 5, timeoutMs: 5000 };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
after(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function recorder(options: { failInbound?: number } = {}) {
  const receipts: DeliveryReceipt[] = [];
  const inbound: InboundSms[] = [];
  let inboundFailures = options.failInbound ?? 0;
  const listener: CarrierListener = {
    async onReceipt(r) {
      receipts.push(r);
    },
    async onInbound(m) {
      if (inboundFailures > 0) {
        inboundFailures--;
        throw new Error('database down');
      }
      inbound.push(m);
    },
  };
  return { receipts, inbound, listener };
}

async function startSimulator(options: SmscSimulatorOptions = {}): Promise<SmscSimulator> {
  const sim = new SmscSimulator(options);
  await sim.start();
  cleanups.push(() => sim.stop());
  return sim;
}

async function startCarrier(
  sim: SmscSimulator,
  overrides: Record<string, unknown> = {},
  listener: CarrierListener = recorder().listener,
  clock?: Clock,
): Promise<SmppCarrier> {
  const carrier = new SmppCarrier({
    config: SmppCarrierConfigSchema.parse({
      name: 'smsc-test',
      type: 'smpp',
      host: '127.0.0.1',
      port: sim.port,
      system_id: 'test',
      password: 'secret',
      max_mps: 10_000,
      window: 10,
      reconnect_min_ms: 10,
      reconnect_max_ms: 100,
      response_timeout_ms: 2000,
      ...overrides,
    }),
    log: silentLogger(),
    clock,
  });
  cleanups.push(() => carrier.stop());
  await carrier.start(listener);
  return carrier;
}

const request = (to: string, body: string, extra: Partial<SubmitSmsRequest> = {}): SubmitSmsRequest => ({
  messageId: `msg_${Math.random().toString(36).slice(2)}`,
  to,
  from: 'ACME',
  livemode: true,
  body,
  requestReceipt: true,
  ...extra,
});

async function rejection(p: Promise<unknown>): Promise<CarrierError> {
  const err = await p.then(
    () => assert.fail('expected a CarrierError'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof CarrierError, String(err));
  return err;
}

/** What the messaging activity does: retry retryable errors once the carrier is bound again. */
async function submitWithRetry(carrier: SmppCarrier, req: SubmitSmsRequest): Promise<SubmitSmsResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await carrier.submit(req);
    } catch (err) {
      if (!(err instanceof CarrierError) || !err.retryable || attempt >= 10) throw err;
      await carrier.waitUntilBound(5000);
    }
  }
}

describe('SMPP carrier against the SMSC simulator', () => {
  it('binds as a transceiver, submits with registered_delivery, and reports DELIVRD and UNDELIV receipts', async () => {
    const sim = await startSimulator({ outcomes: { '447700900002': 'UNDELIV' } });
    const rec = recorder();
    const carrier = await startCarrier(sim, {}, rec.listener);
    assert.equal(carrier.isAvailable(), true);
    assert.equal(sim.binds, 1);

    const delivered = await carrier.submit(request('+447700900001', 'Your code is 1234'));
    const undelivered = await carrier.submit(request('+447700900002', 'Hello'));
    assert.equal(delivered.carrier, 'smsc-test');
    assert.equal(delivered.carrierMessageIds.length, 1);

    const first = sim.submits[0]!;
    assert.deepEqual(
      { destination: first.destination, source: first.source, registeredDelivery: first.registeredDelivery, dataCoding: first.dataCoding, text: first.text },
      { destination: '447700900001', source: 'ACME', registeredDelivery: 1, dataCoding: 0, text: 'Your code is 1234' },
    );

    await pollUntil('two receipts', () => rec.receipts.length === 2, quick);
    const byId = new Map(rec.receipts.map((r) => [r.carrierMessageId, r]));
    assert.equal(byId.get(delivered.carrierMessageIds[0]!)?.status, 'delivered');
    const bad = byId.get(undelivered.carrierMessageIds[0]!);
    assert.equal(bad?.status, 'undelivered');
    assert.equal(bad?.carrierErrorCode, '001');
    assert.equal(bad?.carrier, 'smsc-test');
  });

  it('parses receipts from the text alone when the SMSC sends no TLVs', async () => {
    const sim = await startSimulator({ receiptTlvs: false, outcomes: { '447700900003': 'EXPIRED' } });
    const rec = recorder();
    const carrier = await startCarrier(sim, {}, rec.listener);
    const result = await carrier.submit(request('+447700900003', 'hi'));
    await pollUntil('the receipt', () => rec.receipts.length === 1, quick);
    assert.deepEqual(
      { id: rec.receipts[0]!.carrierMessageId, status: rec.receipts[0]!.status },
      { id: result.carrierMessageIds[0], status: 'expired' },
    );
  });

  it('splits a long body into submit_sm parts with one UDH reference (GSM-7 and UCS-2)', async () => {
    const sim = await startSimulator();
    const rec = recorder();
    const carrier = await startCarrier(sim, {}, rec.listener);

    const gsmBody = `${'Long message with € and {braces} '.repeat(7)}end`;
    const gsm = await carrier.submit(request('+447700900001', gsmBody));
    const ucsBody = `${'Привет 😀 '.repeat(10)}конец`;
    const ucs = await carrier.submit(request('+447700900001', ucsBody));

    const gsmParts = sim.submits.slice(0, gsm.carrierMessageIds.length);
    assert.equal(gsmParts.length, 2);
    assert.equal(new Set(gsmParts.map((p) => p.concat?.ref)).size, 1, 'one reference for all parts');
    assert.deepEqual(gsmParts.map((p) => [p.concat?.seq, p.concat?.total, p.esmClass & 0x40, p.dataCoding]), [
      [1, 2, 0x40, 0],
      [2, 2, 0x40, 0],
    ]);
    assert.equal(gsmParts.map((p) => p.text).join(''), gsmBody);

    const ucsParts = sim.submits.slice(gsm.carrierMessageIds.length);
    assert.equal(ucsParts.length, ucs.carrierMessageIds.length);
    assert.equal(ucsParts.length, 2);
    assert.ok(ucsParts.every((p) => p.dataCoding === 8 && p.concat?.total === 2));
    assert.notEqual(ucsParts[0]!.concat?.ref, gsmParts[0]!.concat?.ref, 'each message gets its own reference');
    assert.equal(ucsParts.map((p) => p.text).join(''), ucsBody);

    await pollUntil('a receipt per part', () => rec.receipts.length === 4, quick);
    assert.deepEqual(new Set(rec.receipts.map((r) => r.carrierMessageId)), new Set([...gsm.carrierMessageIds, ...ucs.carrierMessageIds]));
  });

  it('hands a receipt that arrives before its submit_sm_resp to the listener', async () => {
    const sim = await startSimulator({ receiptBeforeResponse: true });
    const receiptsAtResponse: number[] = [];
    const rec = recorder();
    const carrier = await startCarrier(sim, {}, rec.listener);
    const result = await carrier.submit(request('+447700900001', 'race'));
    receiptsAtResponse.push(rec.receipts.length);
    assert.deepEqual(receiptsAtResponse, [1], 'the listener had the receipt before submit() returned');
    assert.equal(rec.receipts[0]!.carrierMessageId, result.carrierMessageIds[0]);
    assert.equal(rec.receipts[0]!.status, 'delivered');
  });

  it('turns MO deliver_sm into inbound messages, reassembling UDH and SAR concatenated parts', async () => {
    const sim = await startSimulator();
    const rec = recorder();
    await startCarrier(sim, {}, rec.listener);

    assert.deepEqual(await sim.sendMo({ from: '+447700900009', to: '+12025550123', body: 'STOP' }), [0]);
    const longGsm = 'Please call me back about the order #42 '.repeat(5);
    assert.deepEqual(await sim.sendMo({ from: '+447700900009', to: '+12025550123', body: longGsm }), [0, 0]);
    const longUcs = 'Ответ 😀 '.repeat(12);
    await sim.sendMo({ from: '+447700900009', to: '+12025550123', body: longUcs, sar: true });
    await sim.sendMo({ from: '+447700900009', to: 'ACME', body: 'Grüße' });

    await pollUntil('four inbound messages', () => rec.inbound.length === 4, quick);
    assert.deepEqual(
      rec.inbound.map((m) => [m.from, m.to, m.body, m.carrier]),
      [
        ['+447700900009', '+12025550123', 'STOP', 'smsc-test'],
        ['+447700900009', '+12025550123', longGsm, 'smsc-test'],
        ['+447700900009', '+12025550123', longUcs, 'smsc-test'],
        ['+447700900009', 'ACME', 'Grüße', 'smsc-test'],
      ],
    );
  });

  it('asks the SMSC to redeliver (ESME_RX_T_APPN) when the listener fails', async () => {
    const sim = await startSimulator();
    const rec = recorder({ failInbound: 1 });
    await startCarrier(sim, {}, rec.listener);
    assert.deepEqual(await sim.sendMo({ from: '+447700900009', to: '+12025550123', body: 'hello' }), [0x64]);
    assert.deepEqual(await sim.sendMo({ from: '+447700900009', to: '+12025550123', body: 'hello' }), [0]);
    assert.equal(rec.inbound.length, 1);
  });

  it('loses no message when the connection drops mid-batch: in-flight submits fail retryably, the carrier reconnects, retries go through once', async () => {
    const sim = await startSimulator();
    const carrier = await startCarrier(sim, { window: 4 });
    sim.dropConnectionAt(7);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => carrier.submit(request('+447700900001', `batch message ${i}`))));
    const failed = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as CarrierError);
    assert.ok(failed.length >= 1, 'the dropped submit fails');
    assert.ok(failed.every((e) => e instanceof CarrierError && e.retryable && e.code === 'carrier_unavailable'));

    // The caller (a Temporal activity) retries the failed ones.
    const results = await Promise.all(
      outcomes.map((o, i) => (o.status === 'fulfilled' ? o.value : submitWithRetry(carrier, request('+447700900001', `batch message ${i}`)))),
    );
    assert.equal(sim.binds, 2, 'reconnected and bound again');
    assert.equal(results.length, 20);
    const accepted = sim.accepted.map((s) => s.text).sort();
    assert.deepEqual(accepted, Array.from({ length: 20 }, (_, i) => `batch message ${i}`).sort(), 'every message accepted exactly once');
    assert.equal(new Set(results.flatMap((r) => r.carrierMessageIds)).size, 20);
  });

  it('is unavailable during an outage, fails fast and retryably, and comes back when the SMSC does', async () => {
    const sim = await startSimulator();
    const carrier = await startCarrier(sim);
    await sim.stop();
    await pollUntil('the carrier to notice the outage', () => !carrier.isAvailable(), quick);
    const err = await rejection(carrier.submit(request('+447700900001', 'during outage')));
    assert.deepEqual([err.code, err.retryable], ['carrier_unavailable', true]);

    await sim.start();
    await carrier.waitUntilBound(5000);
    const result = await carrier.submit(request('+447700900001', 'after outage'));
    assert.equal(result.carrierMessageIds.length, 1);
    assert.equal(sim.accepted.at(-1)?.text, 'after outage');
  });

  it('keeps the link alive with enquire_link and answers the SMSC’s own', async () => {
    const sim = await startSimulator();
    await startCarrier(sim, { enquire_link_ms: 20 });
    await pollUntil('enquire_link from the carrier', () => sim.enquireLinks >= 2, quick);
    assert.equal(await sim.sendEnquireLink(), 0);
  });

  it('reconnects when enquire_link goes unanswered', async () => {
    const sim = await startSimulator({ answerEnquireLink: false });
    const carrier = await startCarrier(sim, { enquire_link_ms: 20, response_timeout_ms: 50 });
    await pollUntil('a second bind', () => sim.binds >= 2, quick);
    await carrier.waitUntilBound(5000);
  });

  it('classifies submit errors: bad destination final, throttling retryable, no answer is a retryable timeout', async () => {
    const sim = await startSimulator({ submitStatus: { '447700900666': SMPP_STATUS.ESME_RINVDSTADR } });
    const carrier = await startCarrier(sim, { response_timeout_ms: 100 });
    const bad = await rejection(carrier.submit(request('+447700900666', 'x')));
    assert.deepEqual([bad.code, bad.retryable, bad.carrier], ['invalid_destination', false, 'smsc-test']);
    assert.match(bad.message, /ESME_RINVDSTADR/);

    sim.throttleNext(1);
    const throttled = await rejection(carrier.submit(request('+447700900001', 'x')));
    assert.deepEqual([throttled.code, throttled.retryable], ['carrier_throttled', true]);
    await carrier.submit(request('+447700900001', 'x'));

    sim.options.answerSubmits = false;
    const timeout = await rejection(carrier.submit(request('+447700900001', 'x')));
    assert.deepEqual([timeout.code, timeout.retryable], ['carrier_timeout', true]);
  });

  it('stays unavailable when the bind is refused, and start() still returns', async () => {
    const sim = await startSimulator();
    const carrier = await startCarrier(sim, { password: 'wrong' });
    assert.equal(carrier.isAvailable(), false);
    assert.ok(sim.bindFailures >= 1);
    const err = await rejection(carrier.submit(request('+447700900001', 'x')));
    assert.equal(err.code, 'carrier_unavailable');
  });

  it('spends a token of the messages-per-second cap per submitted part (injected clock)', async () => {
    const sim = await startSimulator();
    let t = 0;
    const slept: number[] = [];
    const clock: Clock = { now: () => t, sleep: async (ms) => void (slept.push(ms), (t += ms)) };
    const carrier = await startCarrier(sim, { max_mps: 5, burst: 1 }, recorder().listener, clock);
    await carrier.submit(request('+447700900001', 'one'));
    assert.equal(t, 0, 'the burst token');
    await carrier.submit(request('+447700900001', 'x'.repeat(300))); // two parts
    await carrier.submit(request('+447700900001', 'three'));
    assert.equal(t, 600, 'three more tokens at 5/s = 600 ms of limiter time');
    assert.equal(sim.accepted.length, 4);
  });

  it('stops cleanly with an unbind', async () => {
    const sim = await startSimulator();
    const carrier = await startCarrier(sim);
    assert.equal(sim.boundSessions, 1);
    await carrier.stop();
    assert.equal(carrier.isAvailable(), false);
    await pollUntil('the session to close', () => sim.boundSessions === 0, quick);
  });
});

describe('carrier router over SMPP', () => {
  it('fails over from a dead SMSC to a live one, and back once the first returns', async () => {
    const primary = await startSimulator();
    const secondary = await startSimulator();
    const config = loadConfig({
      SMS_CARRIERS: JSON.stringify([
        { name: 'primary', type: 'smpp', host: '127.0.0.1', port: primary.port, system_id: 'test', password: 'secret', prefixes: ['+44'], priority: 1, reconnect_min_ms: 10, reconnect_max_ms: 50 },
        { name: 'secondary', type: 'smpp', host: '127.0.0.1', port: secondary.port, system_id: 'test', password: 'secret', prefixes: ['+'], priority: 1, reconnect_min_ms: 10, reconnect_max_ms: 50 },
      ]),
    });
    const router = createCarrierRouter(config, silentLogger());
    cleanups.push(() => router.stop());
    const rec = recorder();
    await router.start(rec.listener);

    assert.equal((await router.submit(request('+447700900001', 'to primary'))).carrier, 'primary');
    await pollUntil('the receipt from primary', () => rec.receipts.length === 1, quick);
    await primary.stop();
    await pollUntil('primary to drop', () => !router.carrier('primary')!.isAvailable(), quick);
    const failedOver = await router.submit(request('+447700900001', 'to secondary'));
    assert.equal(failedOver.carrier, 'secondary');
    assert.equal(secondary.accepted.at(-1)?.text, 'to secondary');
    await pollUntil('the receipt from secondary', () => rec.receipts.length === 2, quick);
    assert.deepEqual(rec.receipts.map((r) => r.carrier), ['primary', 'secondary']);

    await secondary.stop();
    await pollUntil('every carrier down', () => !router.isAvailable(), quick);
    const err = await rejection(router.submit(request('+447700900001', 'waits')));
    assert.deepEqual([err.code, err.retryable], ['no_carrier_available', true]);

    await primary.start();
    await (router.carrier('primary') as SmppCarrier).waitUntilBound(5000);
    assert.equal((await router.submit(request('+447700900001', 'waits'))).carrier, 'primary', 'goes out once a carrier returns');
    await pollUntil('the receipt from primary again', () => rec.receipts.length === 3, quick);
  });
});
