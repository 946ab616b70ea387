import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { EventRepo } from './event.repo';
import type { PageParams } from '../db/pagination';
import { notFound } from '../domain/errors';
import { derivedId, IdPrefix, newId } from '../domain/ids';
import type { Metrics } from '../observability/metrics';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import { webhookDeliveryWorkflowContract, webhookDeliveryWorkflowId } from '../../workflows/shared/webhooks.contracts';
import type { ListObject } from '../domain/api-schema';
import { toEventObject, type EventObject } from './event.schemas';
import { toWebhookDeliveryObject, type WebhookDeliveryObject, type WebhookRedeliveryObject } from './webhook-delivery.schemas';

export interface EmitEventInput {
  accountId: string;
  /** SPEC event type, e.g. `message.updated`. */
  type: string;
  /** The resource the event is about, as the API shows it. */
  data: Record<string, unknown>;
  /**
   * A stable id makes emitting idempotent: an activity retried after a crash emits the same event once.
   * Derive it from the workflow and step (`derivedId('evt', workflowId, 'completed')`).
   */
  eventId?: string;
  /** Deliver to this URL (a message's status_callback) instead of the account's endpoints. */
  callbackUrl?: string;
  /** Deliver only to these endpoints, subscribed or not (endpoint tests). */
  endpointIds?: string[];
}

/**
 * Stores events and fans each one out to a delivery workflow per (event, endpoint). Every area emits its
 * events through `emit`.
 */
export class EventsService {
  private readonly repo = new EventRepo();

  constructor(private readonly deps: { db: Kysely<DB>; workflows: WorkflowGateway; metrics?: Metrics }) {}

  async emit(input: EmitEventInput): Promise<EventObject> {
    const { db } = this.deps;
    const id = input.eventId ?? newId(IdPrefix.event);
    const event = await this.repo.insertEvent(db, { id, account_id: input.accountId, type: input.type, data: input.data });
    this.deps.metrics?.eventsEmitted.inc({ type: input.type });

    let targets: { endpoint_id: string | null; url: string }[];
    if (input.callbackUrl) {
      targets = [{ endpoint_id: null, url: input.callbackUrl }];
    } else if (input.endpointIds) {
      const found = await Promise.all(input.endpointIds.map((e) => this.repo.getEndpointById(db, input.accountId, e)));
      targets = found.filter((e) => e !== undefined).map((e) => ({ endpoint_id: e.id, url: e.url }));
    } else {
      const endpoints = await this.repo.listSubscribedEndpoints(db, input.accountId, input.type);
      targets = endpoints.map((e) => ({ endpoint_id: e.id, url: e.url }));
    }
    const deliveries = targets.map((t) => ({
      id: derivedId(IdPrefix.webhookDelivery, event.id, t.endpoint_id ?? t.url),
      account_id: input.accountId,
      event_id: event.id,
      ...t,
    }));
    await this.startDeliveries(deliveries);
    return toEventObject(event);
  }

  private async startDeliveries(
    deliveries: { id: string; account_id: string; event_id: string; endpoint_id: string | null; url: string }[],
  ) {
    await this.repo.insertDeliveries(this.deps.db, deliveries);
    await Promise.all(
      deliveries.map((d) =>
        this.deps.workflows.start(webhookDeliveryWorkflowContract, {
          workflowId: webhookDeliveryWorkflowId(d.id),
          input: { deliveryId: d.id },
          memo: { eventId: d.event_id, endpointId: d.endpoint_id, accountId: d.account_id },
        }),
      ),
    );
  }

  async getEvent(input: { accountId: string; eventId: string }): Promise<EventObject> {
    const row = await this.repo.getEventById(this.deps.db, input.accountId, input.eventId);
    if (!row) throw notFound('event', input.eventId);
    return toEventObject(row);
  }

  async listEvents(input: { accountId: string; page: PageParams; type?: string }): Promise<ListObject<EventObject>> {
    const page = await this.repo.listEvents(this.deps.db, input.accountId, input.page, { type: input.type });
    return { object: 'list' as const, data: page.data.map(toEventObject), has_more: page.has_more };
  }

  /** Deliveries of one event with every attempt (status code, latency, error). */
  async listDeliveries(input: { accountId: string; eventId: string }): Promise<ListObject<WebhookDeliveryObject>> {
    await this.getEvent(input);
    const deliveries = await this.repo.listDeliveriesForEvent(this.deps.db, input.accountId, input.eventId);
    const attempts = await this.repo.listAttempts(this.deps.db, deliveries.map((d) => d.id));
    return { object: 'list' as const, has_more: false, data: deliveries.map((d) => toWebhookDeliveryObject(d, attempts)) };
  }

  /** Sends an event again as a new delivery to its subscribed endpoints, or to one endpoint. */
  async redeliverEvent(input: { accountId: string; eventId: string; endpointId?: string }): Promise<ListObject<WebhookRedeliveryObject>> {
    const event = await this.getEvent(input);
    let endpoints;
    if (input.endpointId) {
      const e = await this.repo.getEndpointById(this.deps.db, input.accountId, input.endpointId);
      if (!e) throw notFound('webhook endpoint', input.endpointId, 'endpoint_id');
      endpoints = [e];
    } else {
      endpoints = await this.repo.listSubscribedEndpoints(this.deps.db, input.accountId, event.type);
    }
    const deliveries = endpoints.map((e) => ({
      id: newId(IdPrefix.webhookDelivery),
      account_id: input.accountId,
      event_id: event.id,
      endpoint_id: e.id,
      url: e.url,
    }));
    await this.startDeliveries(deliveries);
    return { object: 'list' as const, has_more: false, data: deliveries.map((d) => ({ id: d.id, object: 'webhook_delivery', endpoint_id: d.endpoint_id, status: 'pending' })) };
  }
}
