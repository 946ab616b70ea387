import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/observability/logger';
import { OutboxPump } from '../../src/platform/outbox-pump';
import { pollUntil } from '../support/poll';

const settle = () => new Promise((r) => setImmediate(r));

describe('OutboxPump (the claim/wake/sweep loop of both dispatchers)', () => {
  it('starts with a sweep round, and a wake during a round runs one more round after it, never two at once', async () => {
    const rounds: boolean[] = [];
    let inRound = 0;
    let maxInRound = 0;
    let release!: () => void;
    let gate: Promise<void> = new Promise((r) => (release = r));
    const pump = new OutboxPump({
      channel: 'unused',
      sweepMs: 60_000,
      round: async (sweep) => {
        rounds.push(sweep);
        maxInRound = Math.max(maxInRound, ++inRound);
        await gate;
        inRound--;
        return false;
      },
      log: silentLogger(),
      failureMessage: 'failed',
      listenFailureMessage: 'listen failed',
    });
    await pump.start();
    assert.deepEqual(rounds, [true], 'the first round takes over expired claims too');
    pump.wake();
    pump.wake();
    await settle();
    assert.equal(rounds.length, 1, 'no second round while the first runs');
    gate = Promise.resolve();
    release();
    await pollUntil('the round after the wakes', () => rounds.length === 2 && inRound === 0, { intervalMs: 5 });
    await settle();
    await pump.stop();
    assert.deepEqual(rounds, [true, false], 'the wakes during the round made exactly one more');
    assert.equal(maxInRound, 1);
  });

  it('goes on while a round says there is more, stops after a failed round, and wakes on in-process announcements', async () => {
    let more = 3;
    let calls = 0;
    let fail = false;
    let announce!: () => void;
    const pump = new OutboxPump({
      channel: 'unused',
      sweepMs: 60_000,
      round: async () => {
        calls++;
        if (fail) throw new Error('database away');
        return more-- > 0;
      },
      onQueued: (listener) => {
        announce = listener;
        return () => undefined;
      },
      log: silentLogger(),
      failureMessage: 'failed',
      listenFailureMessage: 'listen failed',
    });
    await pump.start();
    await pollUntil('the rounds to drain the outbox', () => calls === 4, { intervalMs: 5 });
    await settle();
    await pump.stop();
    assert.equal(calls, 4, 'three full claims, then one that found less');
    more = 0;
    fail = true;
    calls = 0;
    await pump.start();
    await settle();
    assert.equal(calls, 1, 'a failed round waits for the next wake');
    fail = false;
    announce();
    await settle();
    assert.equal(calls, 2, 'an announcement runs a round');
    await pump.stop();
    announce();
    await settle();
    assert.equal(calls, 2, 'nothing runs once stopped');
  });
});
