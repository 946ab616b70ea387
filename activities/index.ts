import type { Services } from '../src/app/container';
import { createSmsActivities } from './sms.activities';
import { createVerificationActivities } from './verification.activities';
import { createWebhookActivities } from './webhook.activities';
import { createKnowledgeActivities } from './knowledge.activities';

/** Every activity the worker registers, built over the shared services. Each area adds its factory here. */
export function createActivities(services: Services) {
  return {
    ...createWebhookActivities(services),
    ...createKnowledgeActivities(services),
    ...createSmsActivities(services),
    ...createVerificationActivities(services),
  };
}

export type Activities = ReturnType<typeof createActivities>;
