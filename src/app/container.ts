import type { Kysely } from 'kysely';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import { AccountsService } from '../accounts/accounts.service';
import { EventsService } from '../webhooks/events.service';
import { createKnowledgeServices } from '../knowledge/knowledge-services';
import type { SmsCarriers } from '../channels/sms/carrier';
import { InboundSmsService, noCustomerMessagePort } from '../messaging/inbound-sms.service';
import { MessageDeliveryService } from '../messaging/message-delivery.service';
import { MessagesService } from '../messaging/messages.service';
import { PhoneNumbersService } from '../numbers/phone-numbers.service';
import { VerificationsService } from '../verifications/verifications.service';
import { WebhookDeliveryService } from '../webhooks/webhook-delivery.service';
import { WebhookEndpointsService } from '../webhooks/webhook-endpoints.service';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher';

export interface ServiceDeps {
  config: Config;
  db: Kysely<DB>;
  workflows: WorkflowGateway;
  log: Logger;
  metrics?: Metrics;
  /** The SMS carrier router; tests pass a fake. */
  smsCarriers?: SmsCarriers;
}

/**
 * Builds every service once, wired to its dependencies. HTTP routes and activities both use these.
 * Each area adds its services here.
 */
export function createServices(deps: ServiceDeps) {
  const { config, db, workflows, metrics } = deps;
  const accounts = new AccountsService({ db });
  const events = new EventsService({ db, metrics });
  const webhookEndpoints = new WebhookEndpointsService({
    db,
    workflows,
    events,
    allowPrivateNetwork: config.network.allowPrivate,
  });
  const webhookDeliveries = new WebhookDeliveryService({
    db,
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivateNetwork: config.network.allowPrivate,
    metrics,
  });
  const webhookDispatcher = new WebhookDispatcher({
    db, events, deliveries: webhookDeliveries, workflows, log: deps.log, options: config.webhookDispatch,
  });
  const phoneNumbers = new PhoneNumbersService({ db });
  const messages = new MessagesService({ db, workflows, events, phoneNumbers, config });
  const messageDelivery = new MessageDeliveryService({ db, events, config, carriers: deps.smsCarriers });
  const inboundSms = new InboundSmsService({
    db, workflows, events, phoneNumbers, messages, config, log: deps.log,
    delivery: messageDelivery,
    customerMessages: noCustomerMessagePort,
    carriers: deps.smsCarriers,
  });
  const verifications = new VerificationsService({ db, workflows, events, messages, config });
  const knowledge = createKnowledgeServices({ config, db, accounts, workflows, events, log: deps.log });
  return { ...knowledge, accounts, events, webhookEndpoints, webhookDeliveries, webhookDispatcher, phoneNumbers, messages, messageDelivery, inboundSms, verifications };
}

export type Services = ReturnType<typeof createServices>;
