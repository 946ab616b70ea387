import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createWebhookActivities } from '../../activities/webhook.activities';
import { webhookDeliveryWorkflowContract, webhookDeliveryWorkflowId } from '../../workflows/shared/webhooks.contracts';
import { createTimeSkippingEnv, workflowBundle } from '../support/temporal';

type WebhookActivities = ReturnType<typeof createWebhookActivities>;

let env: TestWorkflowEnvironment;
before(async () => {
  env = await createTimeSkippingEnv();
});
after(async () => {
  await env?.teardown();
});

async function run(activities: WebhookActivities, deliveryId: string) {
  const taskQueue = `webhook-outage-${deliveryId}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), activities });
  return worker.runUntil(
    env.client.workflow.execute(webhookDeliveryWorkflowContract.workflowType, {
      taskQueue,
      workflowId: webhookDeliveryWorkflowId(deliveryId),
      args: [{ deliveryId, firstAttempt: 2 }],
    }),
  );
}

describe('webhook retry workflow while the database is away (time-skipping)', () => {
  it('keeps trying an attempt that cannot run, then goes on with the schedule', async () => {
    const calls: { attempt: number; at: number }[] = [];
    let failures = 12; // more than any fixed number of activity retries would absorb
    const activities: WebhookActivities = {
      async attemptWebhookDelivery(input) {
        calls.push({ attempt: input.attempt, at: input.scheduledAtMs });
        if (failures-- > 0) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        return { outcome: input.attempt < 3 ? 'retryable' : 'delivered', statusCode: input.attempt < 3 ? 500 : 200 };
      },
      async failWebhookDelivery() {
        assert.fail('the schedule has not ended');
      },
    };
    const result = await run(activities, `whd_outage_${Date.now()}`);
    assert.deepEqual(result, { status: 'delivered', attempts: 3 });
    assert.ok(calls.filter((c) => c.attempt === 2).length > 12, 'attempt 2 was tried until it could run');
    assert.equal(calls.at(-1)!.attempt, 3);
  });
});
