import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import type { FlakyActivities } from './fixtures/local-activity-failure.workflow';
import { createTimeSkippingEnv } from '../support/temporal';

/**
 * What a failed local activity looks like inside a workflow (the SMS and webhook workflows classify on
 * it through workflows/shared/activity-failures.ts): a timeout arrives wrapped in ActivityFailure, a
 * non-retryable ApplicationFailure arrives as itself, unwrapped. (Read in the SDK core's
 * local_activity_state_machine.rs: only timeouts and cancellations are wrapped.)
 */
let env: TestWorkflowEnvironment;
let bundle: { code: string };
before(async () => {
  env = await createTimeSkippingEnv();
  bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('./fixtures/local-activity-failure.workflow'), logger: new DefaultLogger('WARN') });
});
after(async () => {
  await env?.teardown();
});

async function run(nonRetryable: boolean) {
  const taskQueue = `la-failure-${nonRetryable}-${Date.now()}`;
  let calls = 0;
  const activities: FlakyActivities = {
    async submit(input) {
      calls++;
      throw ApplicationFailure.create({ type: 'no_carrier_available', message: 'every carrier is down', nonRetryable: input.nonRetryable });
    },
  };
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities });
  const result = await worker.runUntil(
    env.client.workflow.execute('localActivityFailureWorkflow', { taskQueue, workflowId: taskQueue, args: [{ nonRetryable }] }),
  );
  return { result, calls };
}

describe('local activity failures as workflows see them (time-skipping)', () => {
  it('a local activity retried until its schedule-to-close timeout: ActivityFailure caused by a TimeoutFailure', async () => {
    const { result, calls } = await run(false);
    assert.deepEqual(result, { wrappedInActivityFailure: true, timeout: true, causeType: 'TimeoutFailure' });
    assert.ok(calls > 1, `retried on durable timers (${calls} calls)`);
  });

  it('a non-retryable failure of a local activity: its ApplicationFailure, not wrapped in ActivityFailure', async () => {
    const { result, calls } = await run(true);
    assert.deepEqual(result, { wrappedInActivityFailure: false, timeout: false, causeType: 'no_carrier_available' });
    assert.equal(calls, 1);
  });
});
