import { defineWorkflowContract } from './workflow-contract';

export interface AnalyticsRollupInput {
  /** Roll this one hour (any instant in it) instead of every hour due: a manual re-run. */
  hour?: string;
}

export interface AnalyticsRollupResult {
  hours: number;
}

/** Rolls the hours changed since the last rollup into the hourly aggregates (src/analytics/rollup.service.ts). */
export const analyticsRollupWorkflowContract = defineWorkflowContract<AnalyticsRollupInput, AnalyticsRollupResult>('analyticsRollupWorkflow');

export const ANALYTICS_ROLLUP_SCHEDULE_ID = 'analytics-rollup';
export const ANALYTICS_ROLLUP_WORKFLOW_ID = 'analytics-rollup';
/** How often the schedule rolls up (the current hour stays this fresh). */
export const ANALYTICS_ROLLUP_EVERY = '5m';
