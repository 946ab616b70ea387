import { registerAccountRoutes } from '../accounts/account.routes';
import { registerAgentRoutes } from '../agents/agents.routes';
import { registerConversationRoutes } from '../conversations/conversations.routes';
import { registerRunRoutes } from '../runs/runs.routes';
import { registerEventRoutes } from '../webhooks/events.routes';
import { registerKnowledgeRoutes } from '../knowledge/knowledge.routes';
import { registerMessageRoutes } from '../messaging/messages.routes';
import { registerPhoneNumberRoutes } from '../numbers/phone-numbers.routes';
import { registerSenderRoutes } from '../numbers/senders.routes';
import { registerVerificationRoutes } from '../verifications/verifications.routes';
import type { RouteDeps } from '../http/route-deps';
import { registerWebhookEndpointRoutes } from '../webhooks/webhook-endpoints.routes';

/** Routes whose JSON bodies may be larger than the default cap (record sources carry rows in bulk). */
export const largeBodyRoutes = ['/v1/knowledge_bases/{id}/sources', '/v1/knowledge_bases/{id}/sources/{src}'];

/** Every /v1 resource. Each area adds its register function here. */
export function registerApiRoutes(deps: RouteDeps): void {
  registerAccountRoutes(deps);
  registerEventRoutes(deps);
  registerWebhookEndpointRoutes(deps);
  registerKnowledgeRoutes(deps);
  registerMessageRoutes(deps);
  registerPhoneNumberRoutes(deps);
  registerSenderRoutes(deps);
  registerVerificationRoutes(deps);
  registerAgentRoutes(deps);
  registerConversationRoutes(deps);
  registerRunRoutes(deps);
}
