import { registerAccountRoutes } from './account.routes';
import { registerEventRoutes } from './events.routes';
import { registerKnowledgeRoutes } from './knowledge.routes';
import { registerMessageRoutes } from './messages.routes';
import { registerPhoneNumberRoutes } from './phone-numbers.routes';
import { registerVerificationRoutes } from './verifications.routes';
import type { RouteDeps } from './route-deps';
import { registerWebhookEndpointRoutes } from './webhook-endpoints.routes';

/** Every /v1 resource. Each area adds its register function here. */
export function registerApiRoutes(deps: RouteDeps): void {
  registerAccountRoutes(deps);
  registerEventRoutes(deps);
  registerWebhookEndpointRoutes(deps);
  registerKnowledgeRoutes(deps);
  registerMessageRoutes(deps);
  registerPhoneNumberRoutes(deps);
  registerVerificationRoutes(deps);
}
