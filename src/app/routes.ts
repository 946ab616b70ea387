import { registerAccountRoutes } from '../accounts/account.routes';
import { registerAgentRoutes } from '../agents/agents.routes';
import { registerConversationRoutes } from '../conversations/conversations.routes';
import { registerQueueRoutes } from '../conversations/queues.routes';
import { registerRunRoutes } from '../runs/runs.routes';
import { registerEvaluationRoutes } from '../evaluations/evaluations.routes';
import { registerEventRoutes } from '../webhooks/events.routes';
import { registerKnowledgeRoutes } from '../knowledge/knowledge.routes';
import { registerKnowledgeGapRoutes } from '../knowledge/knowledge-gaps.routes';
import { registerMessageRoutes } from '../sms/messages.routes';
import { registerMessageBatchRoutes } from '../sms/message-batches.routes';
import { registerPhoneNumberRoutes } from '../numbers/phone-numbers.routes';
import { registerSenderRoutes } from '../numbers/senders.routes';
import { registerVerificationRoutes } from '../verifications/verifications.routes';
import type { Express, Router } from 'express';
import { registerEmailRoutes } from '../channels/email/email.routes';
import { registerEmailAddressRoutes } from '../channels/email/email-addresses.routes';
import { registerEmailDomainRoutes } from '../channels/email/email-domains.routes';
import { registerEmailObjectRoutes } from '../channels/email/emails.routes';
import { registerCallRoutes } from '../channels/voice/calls.routes';
import { registerTestHelperRoutes } from '../test-helpers/test-helpers.routes';
import { registerConsoleAgentRoutes } from '../console/console-agents.routes';
import { registerConsoleInboxRoutes } from '../console/console-inbox.routes';
import { registerConsoleInboxWorkRoutes } from '../console/console-inbox-work.routes';
import { registerConsoleQueueRoutes } from '../console/console-queues.routes';
import { registerSavedReplyRoutes } from '../conversations/saved-replies.routes';
import { registerConsoleKnowledgeRoutes } from '../console/console-knowledge.routes';
import type { ConsoleDeps } from '../console/console-page';
import { registerConsoleSettingsRoutes } from '../console/console-settings.routes';
import { registerConsoleChannelRoutes } from '../console/console-channels.routes';
import { registerConsoleTestRoutes } from '../console/console-tests.routes';
import { registerConsoleWidgetRoutes } from '../console/console-widget.routes';
import { registerConsoleAnalyticsRoutes } from '../console/console-analytics.routes';
import { registerConsoleGapRoutes } from '../console/console-gaps.routes';
import { mountConsole } from '../console/console.routes';
import { registerConsoleTeamRoutes } from '../console/console-team.routes';
import { registerConsoleInviteRoutes } from '../console/console-invites.routes';
import { registerConsoleApprovalRoutes } from '../console/console-approvals.routes';
import type { Config } from '../config/env';
import type { RouteDeps } from '../http/route-deps';
import { registerShortLinkRoutes } from '../links/short-links.routes';
import { registerCitationPageRoutes } from '../knowledge/citation-pages.routes';
import type { Services } from './container';
import { registerWebhookEndpointRoutes } from '../webhooks/webhook-endpoints.routes';
import { registerWidgetRoutes } from '../widget/widget.routes';
import { registerWidgetScriptRoutes } from '../widget/widget-script.routes';
import { registerAnalyticsRoutes } from '../analytics/analytics.routes';

/** Routes whose JSON bodies may be larger than the default cap (record sources carry rows in bulk, batches recipients). */
export const largeBodyRoutes = ['/v1/knowledge_bases/{id}/sources', '/v1/knowledge_bases/{id}/sources/{src}', '/v1/knowledge_bases/{id}/sources/{src}/records', '/v1/knowledge_bases/{id}/sources/{src}/records/{record_id}', '/v1/message_batches'];

/**
 * Every /v1 resource. Each area adds its register function here; each names the services it uses, and gets
 * them from the app's container.
 */
export function registerApiRoutes(deps: RouteDeps<Services>): void {
  registerAccountRoutes(deps);
  registerEventRoutes(deps);
  registerWebhookEndpointRoutes(deps);
  registerKnowledgeRoutes(deps);
  registerKnowledgeGapRoutes(deps);
  registerMessageRoutes(deps);
  registerMessageBatchRoutes(deps);
  registerPhoneNumberRoutes(deps);
  registerSenderRoutes(deps);
  registerVerificationRoutes(deps);
  registerAgentRoutes(deps);
  registerWidgetRoutes(deps);
  registerConversationRoutes(deps);
  registerQueueRoutes(deps);
  registerSavedReplyRoutes(deps);
  registerRunRoutes(deps);
  registerEmailAddressRoutes(deps);
  registerEmailDomainRoutes(deps);
  registerEmailObjectRoutes(deps);
  registerCallRoutes(deps);
  registerTestHelperRoutes(deps);
  registerEvaluationRoutes(deps);
  registerAnalyticsRoutes(deps);
}

/**
 * Endpoints called by machines or people that are not API clients (no API key, not under /v1, not in the
 * OpenAPI document): a customer's phone following a short link or a citation page, mail relays and mail clients,
 * a website loading the chat widget's script. Each
 * verifies its own caller where it must (a signature, a signed token). Each channel adds its register
 * function here (voice webhooks are mounted before the per-address limiter, in src/app/create-app.ts).
 */
export function registerChannelRoutes(router: Router, deps: { services: Services; config: Config }): void {
  registerShortLinkRoutes(router, { shortLinks: deps.services.shortLinks });
  registerCitationPageRoutes(router, { citationPages: deps.services.citationPages });
  registerWidgetScriptRoutes(router);
  registerEmailRoutes(router, deps);
}

/**
 * The support team's console under /console: its frame (sign-in, session, CSRF, 404 and error pages, in
 * console.routes.ts) around each page area's routes. Each console page area adds its register function here.
 */
export function registerConsoleRoutes(app: Express, deps: ConsoleDeps<Services>): void {
  mountConsole(app, deps, [registerConsoleAnalyticsRoutes, registerConsoleAgentRoutes, registerConsoleTestRoutes, registerConsoleKnowledgeRoutes, registerConsoleInboxWorkRoutes, registerConsoleInboxRoutes, registerConsoleQueueRoutes, registerConsoleSettingsRoutes, registerConsoleChannelRoutes, registerConsoleWidgetRoutes, registerConsoleGapRoutes, registerConsoleTeamRoutes, registerConsoleApprovalRoutes], [registerConsoleInviteRoutes]);
}
