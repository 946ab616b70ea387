/**
 * Bench-only (npm run bench:runs): the bare workflow a chat run is compared with, three no-op local
 * activities with the run steps' options. Registered by the bench's own worker, never in workflows/index.ts.
 */
import { proxyLocalActivities } from '@temporalio/workflow';
import { runStepLocalActivity } from '../workflows/shared/activity-options';

export interface BaselineActivities {
  noop(input: { step: number }): Promise<void>;
}

const { noop } = proxyLocalActivities<BaselineActivities>(runStepLocalActivity);

export async function benchBaselineWorkflow(): Promise<void> {
  await noop({ step: 1 });
  await noop({ step: 2 });
  await noop({ step: 3 });
}
