import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChaos, SCENARIOS } from '../../bench/chaos';

/**
 * `npm run chaos` at a small size (30 SMS and 30 webhook events per scenario), every scenario against
 * the local stack: the worker killed with SIGKILL, Postgres cut for 10 s, the SMSC dropped mid-window
 * with the second carrier down, the webhook receiver down for an hour of (scaled) retry schedule, and a
 * message batch of 30 recipients through a worker killed with SIGKILL mid-batch (SMS only).
 */
describe('chaos (small)', () => {
  it('loses and duplicates no SMS and no webhook event in any scenario', async () => {
    const report = await runChaos({ size: 30 });
    assert.deepEqual(Object.keys(report), [...SCENARIOS]);
    for (const [scenario, r] of Object.entries(report)) {
      for (const kind of ['sms', 'webhooks'] as const) {
        if (!(kind in r)) continue; // the batch scenario sends SMS only
        const figures = (r as Record<typeof kind, { arrived: number; lost: number; duplicated: number; final_states: unknown }>)[kind];
        assert.deepEqual(
          { arrived: figures.arrived, lost: figures.lost, duplicated: figures.duplicated },
          { arrived: 30, lost: 0, duplicated: 0 },
          `${scenario} ${kind}: ${JSON.stringify(figures)}`,
        );
        assert.deepEqual(figures.final_states, { delivered: 30 }, `${scenario} ${kind}: final states in the database`);
      }
    }

    // The faults really happened: submits left unanswered by the drop, none taken by the carrier that
    // was down; every event refused at 0, 1m, 6m and 36m, delivered at its 2h36m attempt (the 5th) or,
    // should its retries have started far apart on a loaded machine, a later one.
    assert.ok('sms' in report.message_batch_worker_kill_9!);
    const drop = report.smsc_drop_second_carrier_down!;
    assert.ok('webhooks' in drop && 'webhooks' in report.receiver_down_1h!);
    const smsc = drop.sms;
    assert.ok(smsc.unanswered_submits >= 1, JSON.stringify(smsc));
    assert.equal(smsc.by_carrier.smsc2, 0);
    const receiverDown = report.receiver_down_1h!;
    const attempts = 'webhooks' in receiverDown ? Object.entries(receiverDown.webhooks.delivered_at_attempt) : [];
    assert.ok(attempts.every(([attempt]) => Number(attempt) >= 5), `delivered at attempts ${JSON.stringify(attempts)}`);
    assert.equal(attempts.reduce((n, [, count]) => n + count, 0), 30);
  });
});
