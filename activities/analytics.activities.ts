import { Context } from '@temporalio/activity';
import type { RollupService } from '../src/analytics/rollup.service';
import { asActivity } from './activity-errors';

export function createAnalyticsActivities(deps: { analyticsRollup: RollupService }) {
  return {
    /** Rolls the hours due (or one hour) into the hourly aggregates, heartbeating per hour. */
    async rollUpAnalytics(input: { hour?: string }) {
      return asActivity(async () => {
        if (input.hour) {
          await deps.analyticsRollup.rollUpHour({ hour: new Date(input.hour) });
          return { hours: 1 };
        }
        const r = await deps.analyticsRollup.rollUpDue({ heartbeat: () => Context.current().heartbeat() });
        return { hours: r.hours };
      });
    },
  };
}
