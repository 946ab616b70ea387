import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runChaos } from '../../bench/chaos';

/** `npm run chaos` at a small size: a worker killed with SIGKILL, Postgres cut for 10 s. */
describe('chaos (small)', () => {
  it('loses and duplicates nothing when the worker is killed and when Postgres is cut', async () => {
    const report = (await runChaos({ size: 30 })) as Record<string, { sms: { lost: number; duplicated: number }; webhooks: { lost: number; duplicated: number } }>;
    for (const [scenario, r] of Object.entries(report)) {
      assert.deepEqual([r.sms.lost, r.sms.duplicated], [0, 0], `${scenario}: sms ${JSON.stringify(r.sms)}`);
      assert.equal(r.webhooks.lost, 0, `${scenario}: webhooks ${JSON.stringify(r.webhooks)}`);
    }
  });
});
