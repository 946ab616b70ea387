import { proxyActivities } from '@temporalio/workflow';
import type { createAnalyticsActivities } from '../activities/analytics.activities';
import { rollupActivity } from './shared/activity-options';
import type { AnalyticsRollupInput, AnalyticsRollupResult } from './shared/analytics.contracts';

type AnalyticsActivities = ReturnType<typeof createAnalyticsActivities>;
const { rollUpAnalytics } = proxyActivities<AnalyticsActivities>(rollupActivity);

/** The schedule's action: one rollup of the hours due (or of one hour asked for). */
export async function analyticsRollupWorkflow(input: AnalyticsRollupInput): Promise<AnalyticsRollupResult> {
  return rollUpAnalytics(input);
}
