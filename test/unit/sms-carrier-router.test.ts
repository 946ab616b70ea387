import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isValidPhoneNumber } from 'libphonenumber-js';
import {
  CarrierError,
  type Carrier,
  type CarrierListener,
  type DeliveryReceipt,
  type InboundSms,
  type SubmitSmsRequest,
  type SubmitSmsResult,
} from '../../src/sms/carrier';
import { createCarrierRouter, TEST_SANDBOX_NAME } from '../../src/sms/carrier-registry';
import { loadConfig } from '../../src/config/env';
import { SandboxCarrierConfigSchema } from '../../src/config/sms-carriers';
import { SANDBOX_MAGIC_NUMBERS, SandboxCarrier } from '../../src/sms/carriers/sandbox.carrier';
import { CircuitBreaker } from '../../src/sms/circuit-breaker';
import { CarrierRouter } from '../../src/sms/router';
import { silentLogger } from '../../src/observability/logger';
import { buildTestConfig } from '../support/config';
import { pollUntil } from '../support/poll';

type Behaviour = 'ok' | 'retryable' | 'final' | 'hang' | 'throw';

/** A scripted carrier: each submit takes the next behaviour (the last one repeats). */
class FakeCarrier implements Carrier {
  submits = 0;
  available = true;
  started = false;
  constructor(
    readonly name: string,
    private script: Behaviour[] = ['ok'],
  ) {}
  isAvailable() {
    return this.available;
  }
  setScript(script: Behaviour[]) {
    this.script = script;
  }
  async submit(_request: SubmitSmsRequest): Promise<SubmitSmsResult> {
    const behaviour = this.script.length > 1 ? this.script.shift()! : this.script[0]!;
    this.submits++;
    switch (behaviour) {
      case 'ok':
        return { carrier: this.name, carrierMessageIds: [`${this.name}-${this.submits}`] };
      case 'retryable':
        throw new CarrierError('down', this.name, 'carrier_unavailable', true);
      case 'final':
        throw new CarrierError('bad number', this.name, 'invalid_destination', false);
      case 'throw':
        throw new Error('bug');
      case 'hang':
        return new Promise(() => undefined);
    }
  }
  async start() {
    this.started = true;
  }
  async stop() {
    this.started = false;
  }
}

/** Receipts arrive in-process: checked every 5 ms, for at most 5 s. */
const quick = { intervalMs: 5, timeoutMs: 5000 };

const req = (to: string, extra: Partial<SubmitSmsRequest> = {}): SubmitSmsRequest => ({
  messageId: 'msg_test',
  to,
  from: 'ACME',
  livemode: true,
  body: 'hello',
  requestReceipt: true,
  ...extra,
});

async function rejectsWith(p: Promise<unknown>, code: string, retryable: boolean): Promise<CarrierError> {
  const err = await p.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof CarrierError, String(err));
  assert.equal(err.code, code);
  assert.equal(err.retryable, retryable);
  return err;
}

describe('circuit breaker', () => {
  it('opens after N consecutive failures, half-opens after the cool-down for one probe, closes on its success', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 3, coolDownMs: 1000, now: () => now });
    breaker.onFailure();
    breaker.onFailure();
    breaker.onSuccess();
    breaker.onFailure();
    breaker.onFailure();
    assert.equal(breaker.state, 'closed', 'a success resets the count');
    breaker.onFailure();
    assert.equal(breaker.state, 'open');
    assert.equal(breaker.tryAcquire(), false);
    now += 1000;
    assert.equal(breaker.state, 'half_open');
    assert.equal(breaker.tryAcquire(), true, 'the probe');
    assert.equal(breaker.tryAcquire(), false, 'only one probe at a time');
    breaker.onSuccess();
    assert.equal(breaker.state, 'closed');
    assert.equal(breaker.tryAcquire(), true);
  });

  it('a failed probe opens the circuit for another cool-down', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 2, coolDownMs: 500, now: () => now });
    breaker.onFailure();
    breaker.onFailure();
    now += 500;
    assert.equal(breaker.tryAcquire(), true);
    breaker.onFailure();
    assert.equal(breaker.state, 'open');
    now += 499;
    assert.equal(breaker.tryAcquire(), false);
    now += 1;
    assert.equal(breaker.state, 'half_open');
  });
});

describe('carrier router', () => {
  it('orders carriers by longest matching prefix, then priority; no match is no_route (final)', () => {
    const world = new FakeCarrier('world');
    const uk = new FakeCarrier('uk');
    const ukBackup = new FakeCarrier('uk-backup');
    const router = new CarrierRouter({
      carriers: [
        { carrier: world, prefixes: ['+'], priority: 1 },
        { carrier: ukBackup, prefixes: ['+44'], priority: 20 },
        { carrier: uk, prefixes: ['+44', '+353'], priority: 10 },
      ],
    });
    assert.deepEqual(router.route('+447700900123', undefined, true).map((c) => c.name), ['uk', 'uk-backup', 'world']);
    assert.deepEqual(router.route('+35312345678', undefined, true).map((c) => c.name), ['uk', 'world']);
    assert.deepEqual(router.route('+12025550123', undefined, true).map((c) => c.name), ['world']);

    const ukOnly = new CarrierRouter({ carriers: [{ carrier: uk, prefixes: ['+44'], priority: 1 }] });
    assert.throws(() => ukOnly.route('+12025550123', undefined, true), (e: unknown) => e instanceof CarrierError && e.code === 'no_route' && !e.retryable);
  });

  it('limits an account to its configured carriers', async () => {
    const a = new FakeCarrier('a');
    const b = new FakeCarrier('b');
    const router = new CarrierRouter({
      carriers: [
        { carrier: a, prefixes: ['+'], priority: 1 },
        { carrier: b, prefixes: ['+'], priority: 2 },
      ],
      accountCarriers: { acct_b: ['b'] },
    });
    assert.equal((await router.submit(req('+447700900123', { accountId: 'acct_b' }))).carrier, 'b');
    assert.equal((await router.submit(req('+447700900123', { accountId: 'acct_other' }))).carrier, 'a');
    assert.equal((await router.submit(req('+447700900123'))).carrier, 'a');
  });

  it('fails over from a dead carrier to a live one and reports which carrier took the message', async () => {
    const dead = new FakeCarrier('dead', ['retryable']);
    const unbound = new FakeCarrier('unbound');
    unbound.available = false;
    const buggy = new FakeCarrier('buggy', ['throw']);
    const live = new FakeCarrier('live');
    const router = new CarrierRouter({
      carriers: [
        { carrier: dead, prefixes: ['+'], priority: 1 },
        { carrier: unbound, prefixes: ['+'], priority: 2 },
        { carrier: buggy, prefixes: ['+'], priority: 3 },
        { carrier: live, prefixes: ['+'], priority: 4 },
      ],
    });
    const result = await router.submit(req('+447700900123'));
    assert.deepEqual(result, { carrier: 'live', carrierMessageIds: ['live-1'] });
    assert.equal(dead.submits, 1);
    assert.equal(unbound.submits, 0, 'an unavailable carrier is skipped without a submit');
    assert.equal(buggy.submits, 1);
  });

  it('fails over when a carrier gives up at its deadline with nothing sent', async () => {
    const slow = new FakeCarrier('slow', ['ok']);
    slow.submit = async (request) => {
      slow.submits++;
      await new Promise((r) => setTimeout(r, Math.max(0, request.deadline! - Date.now()) + 5));
      throw new CarrierError('queued past its deadline, not sent', 'slow', 'carrier_timeout', true);
    };
    const live = new FakeCarrier('live');
    const router = new CarrierRouter({
      attemptTimeoutMs: 20,
      carriers: [
        { carrier: slow, prefixes: ['+'], priority: 1 },
        { carrier: live, prefixes: ['+'], priority: 2 },
      ],
    });
    assert.equal((await router.submit(req('+447700900123'))).carrier, 'live');
    assert.equal(slow.submits, 1);
  });

  it('does not fail over from a carrier that never answers: the message may have gone out', async () => {
    const slow = new FakeCarrier('slow', ['hang']);
    const live = new FakeCarrier('live');
    const router = new CarrierRouter({
      attemptTimeoutMs: 20,
      carriers: [
        { carrier: slow, prefixes: ['+'], priority: 1 },
        { carrier: live, prefixes: ['+'], priority: 2 },
      ],
    });
    const err = await router.submit(req('+447700900123')).then(() => assert.fail('expected submit_uncertain'), (e: CarrierError) => e);
    assert.deepEqual([err.code, err.progress.sent], ['submit_uncertain', 'unknown']);
    assert.equal(live.submits, 0);
  });

  it('does not fail over on a final error: the number is bad everywhere', async () => {
    const first = new FakeCarrier('first', ['final']);
    const second = new FakeCarrier('second');
    const router = new CarrierRouter({
      carriers: [
        { carrier: first, prefixes: ['+'], priority: 1 },
        { carrier: second, prefixes: ['+'], priority: 2 },
      ],
    });
    await rejectsWith(router.submit(req('+447700900123')), 'invalid_destination', false);
    assert.equal(second.submits, 0);
    assert.equal(router.circuitState('first'), 'closed', 'a carrier that answers is healthy');
  });

  it('skips a carrier whose circuit is open, probes it after the cool-down and uses it again once it recovers', async () => {
    let now = 0;
    const flaky = new FakeCarrier('flaky', ['retryable']);
    const backup = new FakeCarrier('backup');
    const router = new CarrierRouter({
      now: () => now,
      breaker: { failureThreshold: 2, coolDownMs: 10_000 },
      carriers: [
        { carrier: flaky, prefixes: ['+'], priority: 1 },
        { carrier: backup, prefixes: ['+'], priority: 2 },
      ],
    });
    await router.submit(req('+447700900123'));
    await router.submit(req('+447700900123'));
    assert.equal(router.circuitState('flaky'), 'open');
    assert.equal(flaky.submits, 2);
    assert.equal((await router.submit(req('+447700900123'))).carrier, 'backup');
    assert.equal(flaky.submits, 2, 'open circuit: not even tried');

    now += 10_000;
    assert.equal(router.circuitState('flaky'), 'half_open');
    await router.submit(req('+447700900123'));
    assert.equal(flaky.submits, 3, 'one probe');
    assert.equal(router.circuitState('flaky'), 'open', 'the probe failed');

    now += 10_000;
    flaky.setScript(['ok']);
    assert.equal((await router.submit(req('+447700900123'))).carrier, 'flaky');
    assert.equal(router.circuitState('flaky'), 'closed');
  });

  it('with every carrier down, throws a retryable no_carrier_available naming each carrier', async () => {
    const a = new FakeCarrier('a', ['retryable']);
    const b = new FakeCarrier('b');
    b.available = false;
    const router = new CarrierRouter({
      carriers: [
        { carrier: a, prefixes: ['+'], priority: 1 },
        { carrier: b, prefixes: ['+'], priority: 2 },
      ],
    });
    const err = await rejectsWith(router.submit(req('+447700900123')), 'no_carrier_available', true);
    assert.match(err.message, /a: carrier_unavailable; b: unavailable/);
    assert.equal(router.isAvailable(), true, 'a is still bound; only its submits fail');
    a.available = false;
    assert.equal(router.isAvailable(), false);
    b.available = true;
    assert.equal((await router.submit(req('+447700900123'))).carrier, 'b', 'goes out once a carrier returns');
  });

  it('starts and stops every carrier with the one listener', async () => {
    const a = new FakeCarrier('a');
    const b = new FakeCarrier('b');
    const router = new CarrierRouter({ carriers: [{ carrier: a, prefixes: ['+'], priority: 1 }, { carrier: b, prefixes: ['+'], priority: 2 }] });
    await router.start({ onReceipt: async () => undefined, onInbound: async () => undefined });
    assert.deepEqual([a.started, b.started], [true, true]);
    await router.stop();
    assert.deepEqual([a.started, b.started], [false, false]);
  });

  it('is built from config: the sandbox alone by default, SMS_CARRIERS and SMS_ACCOUNT_CARRIERS otherwise', () => {
    const router = createCarrierRouter(buildTestConfig(), silentLogger());
    assert.deepEqual(router.carriers.map((c) => c.name), ['sandbox']);
    assert.ok(router.carriers[0] instanceof SandboxCarrier);

    const config = loadConfig({
      SMS_CARRIERS: JSON.stringify([
        { name: 'sandbox', type: 'sandbox', prefixes: ['+'], priority: 10, submit_delay_ms: 0, receipt_delay_ms: 0 },
        { name: 'smsc-a', type: 'smpp', host: '127.0.0.1', port: 2775, system_id: 'x', password: 'y', prefixes: ['+44'], priority: 1 },
      ]),
      SMS_ACCOUNT_CARRIERS: JSON.stringify({ acct_1: ['sandbox'] }),
    });
    const configured = createCarrierRouter(config, silentLogger());
    assert.deepEqual(configured.route('+447700900123', undefined, true).map((c) => c.name), ['smsc-a', 'sandbox']);
    assert.deepEqual(configured.route('+447700900123', 'acct_1', true).map((c) => c.name), ['sandbox']);
    // Test mode goes to the sandbox whatever the prefixes and account restrictions say; with no sandbox
    // configured, to the router's own test sandbox (never a real carrier).
    assert.deepEqual(configured.route('+447700900123', undefined, false).map((c) => c.name), ['sandbox']);
    const smppOnly = createCarrierRouter(
      loadConfig({ SMS_CARRIERS: JSON.stringify([{ name: 'smsc-a', type: 'smpp', host: '127.0.0.1', port: 2775, system_id: 'x', password: 'y', prefixes: ['+'], priority: 1 }]) }),
      silentLogger(),
    );
    assert.deepEqual(smppOnly.route('+447700900123', undefined, true).map((c) => c.name), ['smsc-a']);
    assert.deepEqual(smppOnly.route('+447700900123', undefined, false).map((c) => c.name), [TEST_SANDBOX_NAME]);
    assert.throws(() => loadConfig({ SMS_CARRIERS: '[{"name":"a","type":"carrier-pigeon"}]' }), /SMS_CARRIERS/);
    assert.throws(() => loadConfig({ SMS_ACCOUNT_CARRIERS: '{"acct_1":["nope"]}' }), /unknown carrier nope/);
  });
});

/** Collects what a carrier reports. */
function recorder(options: { failReceipts?: number } = {}) {
  const receipts: DeliveryReceipt[] = [];
  const inbound: InboundSms[] = [];
  let failures = options.failReceipts ?? 0;
  const listener: CarrierListener = {
    async onReceipt(r) {
      if (failures > 0) {
        failures--;
        throw new Error('database down');
      }
      receipts.push(r);
    },
    async onInbound(m) {
      inbound.push(m);
    },
  };
  return { receipts, inbound, listener };
}

function sandbox(overrides: Record<string, unknown> = {}) {
  return new SandboxCarrier({
    config: SandboxCarrierConfigSchema.parse({ name: 'sandbox', type: 'sandbox', submit_delay_ms: 0, receipt_delay_ms: 0, ...overrides }),
    log: silentLogger(),
  });
}

describe('sandbox carrier', () => {
  it('documents magic numbers that the messaging API accepts as valid', () => {
    for (const n of Object.values(SANDBOX_MAGIC_NUMBERS)) assert.equal(isValidPhoneNumber(n), true, n);
  });

  it('accepts any other number with one id per segment and sends a delivered receipt naming the first', async () => {
    const carrier = sandbox();
    const rec = recorder();
    await carrier.start(rec.listener);
    const result = await carrier.submit(req('+447700900123', { body: 'x'.repeat(161) }));
    assert.equal(result.carrier, 'sandbox');
    assert.equal(result.carrierMessageIds.length, 2);
    await pollUntil('the receipt', () => rec.receipts.length === 1, quick);
    assert.equal(rec.receipts[0]!.carrierMessageId, result.carrierMessageIds[0]);
    assert.equal(rec.receipts[0]!.status, 'delivered');
    await carrier.stop();
  });

  it('scripts failed, undelivered, no receipt and carrier-down outcomes', async () => {
    const carrier = sandbox();
    const rec = recorder();
    await carrier.start(rec.listener);
    await rejectsWith(carrier.submit(req(SANDBOX_MAGIC_NUMBERS.failAtSubmit)), 'carrier_rejected', false);
    await rejectsWith(carrier.submit(req(SANDBOX_MAGIC_NUMBERS.carrierDown)), 'carrier_unavailable', true);
    await rejectsWith(carrier.submit(req(SANDBOX_MAGIC_NUMBERS.carrierDown)), 'carrier_unavailable', true);

    await rejectsWith(carrier.submit(req(SANDBOX_MAGIC_NUMBERS.carrierDownOnce, { messageId: 'msg_once' })), 'carrier_unavailable', true);
    const retried = await carrier.submit(req(SANDBOX_MAGIC_NUMBERS.carrierDownOnce, { messageId: 'msg_once' }));
    assert.equal(retried.carrierMessageIds.length, 1, 'the retry of the same message goes through');

    const undelivered = await carrier.submit(req(SANDBOX_MAGIC_NUMBERS.undelivered));
    const silent = await carrier.submit(req(SANDBOX_MAGIC_NUMBERS.noReceipt));
    await pollUntil('two receipts', () => rec.receipts.length === 2, quick);
    const byId = new Map(rec.receipts.map((r) => [r.carrierMessageId, r]));
    assert.deepEqual(
      { status: byId.get(undelivered.carrierMessageIds[0]!)?.status, err: byId.get(undelivered.carrierMessageIds[0]!)?.carrierErrorCode },
      { status: 'undelivered', err: '001' },
    );
    assert.equal(byId.get(retried.carrierMessageIds[0]!)?.status, 'delivered');
    assert.equal(byId.has(silent.carrierMessageIds[0]!), false, 'no receipt for the no-receipt number');
    await carrier.stop();
  });

  it('retries a receipt the listener failed to take, and can go down as a whole', async () => {
    const carrier = sandbox();
    const rec = recorder({ failReceipts: 1 });
    await carrier.start(rec.listener);
    await carrier.submit(req('+447700900123'));
    await pollUntil('the redelivered receipt', () => rec.receipts.length === 1, quick);

    carrier.setAvailable(false);
    assert.equal(carrier.isAvailable(), false);
    await rejectsWith(carrier.submit(req('+447700900123')), 'carrier_unavailable', true);
    carrier.setAvailable(true);
    await carrier.submit(req('+447700900123'));
    await carrier.stop();
  });

  it('delivers simulated inbound messages to the listener', async () => {
    const carrier = sandbox();
    const rec = recorder();
    await carrier.start(rec.listener);
    await carrier.simulateInbound({ from: '+447700900123', to: '+12025550123', body: 'STOP' });
    assert.equal(rec.inbound[0]?.body, 'STOP');
    assert.equal(rec.inbound[0]?.carrier, 'sandbox');
    await carrier.stop();
  });
});
