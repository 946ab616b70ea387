import { createAnalyticsActivities } from './analytics.activities';
import { createEvaluationActivities } from './evaluations.activities';
import { createKnowledgeActivities } from './knowledge.activities';
import { createRunActivities } from './runs.activities';
import { createSmsActivities } from './sms.activities';
import { createVerificationActivities } from './verification.activities';
import { createWebhookActivities } from './webhook.activities';

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * Merges the areas' activity factories into the one object the worker registers, refusing two areas that
 * define the same activity name (a later `sendMessage` of email must not silently replace SMS's). Names
 * are kept as they are, not prefixed, so histories of running workflows still replay.
 */
export function mergeActivities<T extends Record<string, unknown>[]>(...groups: T): UnionToIntersection<T[number]> {
  const merged: Record<string, unknown> = {};
  for (const group of groups) {
    for (const [name, fn] of Object.entries(group)) {
      if (name in merged) throw new Error(`Two activity factories define the activity '${name}'`);
      merged[name] = fn;
    }
  }
  return merged as UnionToIntersection<T[number]>;
}

/** The services the activities run over: what each area's factory names (the app passes its container). */
export type ActivityServices = Parameters<typeof createWebhookActivities>[0] &
  Parameters<typeof createKnowledgeActivities>[0] &
  Parameters<typeof createSmsActivities>[0] &
  Parameters<typeof createVerificationActivities>[0] &
  Parameters<typeof createRunActivities>[0] &
  Parameters<typeof createEvaluationActivities>[0] &
  Parameters<typeof createAnalyticsActivities>[0];

/** Every activity the worker registers, built over the shared services. Each area adds its factory here. */
export function createActivities(services: ActivityServices) {
  return mergeActivities(
    createWebhookActivities(services),
    createKnowledgeActivities(services),
    createSmsActivities(services),
    createVerificationActivities(services),
    createRunActivities(services),
    createEvaluationActivities(services),
    createAnalyticsActivities(services),
  );
}

export type Activities = ReturnType<typeof createActivities>;
