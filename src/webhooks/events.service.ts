import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { EventRepo } from './event.repo';
import type { PageParams } from '../db/pagination';
import { notFound, referenceMissing } from '../domain/errors';
import type { Scope } from '../domain/principal';
import { IdPrefix, newId } from '../domain/ids';
import type { Metrics } from '../observability/metrics';
import type { ListObject } from '../domain/api-schema';
import { toEventObject, type EventObject } from './event.schemas';
import { toWebhookDeliveryObject, type WebhookDeliveryObject, type WebhookRedeliveryObject } from './webhook-delivery.schemas';
import { WebhookOutboxRepo, type OutboxTarget } from './webhook-outbox.repo';


export interface EmitEventInput {
  accountId: string;
  /** The mode of the object the event is about: the event has it, and only endpoints of that mode get it. */
  livemode: boolean;
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

/** A transaction the caller's state change runs in; events emitted with it commit (or not) with it. */
export type EventTransaction = Transaction<DB>;

/**
 * Stores events in the transactional outbox: the event and one delivery row per target endpoint (or
 * callback URL) are written by one statement, in the caller's transaction when it passes one, so a state
 * change and its event commit together. The commit notifies the dispatcher (LISTEN/NOTIFY, plus an
 * in-process wake-up when the dispatcher runs in this process), which makes the first attempt; only a
 * failed attempt starts a retry workflow. Every area emits its events through `emit`.
 */
export class EventsService {
  private readonly repo = new EventRepo();
  private readonly outbox = new WebhookOutboxRepo();
  private readonly queuedListeners = new Set<() => void>();
  /** Deliveries queued inside transactions opened by `transaction()`, announced after their commit. */
  private readonly queuedInTransaction = new WeakMap<EventTransaction, { deliveries: number }>();

  constructor(private readonly deps: { db: Kysely<DB>; metrics?: Metrics }) {}

  /**
   * Stores an event and queues its deliveries. With `tx`, both commit with the caller's transaction
   * (use `transaction()` to open one: its commit also wakes the dispatcher at once).
   */
  async emit(input: EmitEventInput, opts: { tx?: EventTransaction } = {}): Promise<EventObject> {
    const db = opts.tx ?? this.deps.db;
    const id = input.eventId ?? newId(IdPrefix.event);
    const target: OutboxTarget = input.callbackUrl
      ? { kind: 'callback', url: input.callbackUrl }
      : input.endpointIds
        ? { kind: 'endpoints', endpointIds: input.endpointIds }
        : { kind: 'subscribed' };
    const stored = await this.outbox.insertEventWithDeliveries(db, { id, account_id: input.accountId, livemode: input.livemode, type: input.type, data: input.data }, target);
    if (stored.inserted) this.deps.metrics?.eventsEmitted.inc({ type: input.type });
    this.noteQueued(stored.deliveries, opts.tx);
    return toEventObject(stored.event);
  }

  /**
   * Stores many events and their deliveries in one statement (the same rules as `emit`, each event to its
   * callback URL or the account's subscribed endpoints). Every input needs its `eventId`.
   */
  async emitMany(inputs: (EmitEventInput & { eventId: string })[], opts: { tx?: EventTransaction } = {}): Promise<void> {
    if (inputs.length === 0) return;
    const stored = await this.outbox.insertEventsWithDeliveries(
      opts.tx ?? this.deps.db,
      inputs.map((e) => ({ id: e.eventId, account_id: e.accountId, livemode: e.livemode, type: e.type, data: e.data, callback_url: e.callbackUrl ?? null })),
    );
    for (const [type, n] of Object.entries(stored.insertedByType)) this.deps.metrics?.eventsEmitted.inc({ type }, n);
    this.noteQueued(stored.deliveries, opts.tx);
  }

  /**
   * Deliveries just queued wake the dispatcher: at once without a transaction, at the commit of one opened
   * by `transaction()`, and for a transaction of the caller's own (its commit notifies) by an in-process
   * nudge that only shortens the wait.
   */
  private noteQueued(deliveries: number, tx?: EventTransaction) {
    if (deliveries === 0) return;
    const pending = tx && this.queuedInTransaction.get(tx);
    if (pending) pending.deliveries += deliveries;
    else if (!tx) this.announceQueued();
    else setTimeout(() => this.announceQueued(), 50).unref();
  }

  /**
   * Runs `fn` in a transaction: a state change and the events emitted with `{ tx }` inside commit
   * together or not at all. Deliveries queued inside wake the dispatcher once committed.
   */
  async transaction<T>(fn: (tx: EventTransaction) => Promise<T>): Promise<T> {
    const queued = { deliveries: 0 };
    const result = await this.deps.db.transaction().execute(async (tx) => {
      this.queuedInTransaction.set(tx, queued);
      return fn(tx);
    });
    if (queued.deliveries > 0) this.announceQueued();
    return result;
  }

  /** Calls `listener` whenever this process queued deliveries (the dispatcher's in-process wake-up). */
  onDeliveriesQueued(listener: () => void): () => void {
    this.queuedListeners.add(listener);
    return () => this.queuedListeners.delete(listener);
  }

  private announceQueued() {
    for (const listener of this.queuedListeners) listener();
  }

  async getEvent(input: Scope & { eventId: string }): Promise<EventObject> {
    const row = await this.repo.getEventById(this.deps.db, input, input.eventId);
    if (!row) throw notFound('event', input.eventId);
    return toEventObject(row);
  }

  async listEvents(input: Scope & { page: PageParams; type?: string }): Promise<ListObject<EventObject>> {
    const page = await this.repo.listEvents(this.deps.db, input, input.page, { type: input.type });
    return { object: 'list' as const, data: page.data.map(toEventObject), has_more: page.has_more };
  }

  /** Deliveries of one event with every attempt (status code, latency, error). */
  async listDeliveries(input: Scope & { eventId: string }): Promise<ListObject<WebhookDeliveryObject>> {
    await this.getEvent(input);
    const deliveries = await this.repo.listDeliveriesForEvent(this.deps.db, input, input.eventId);
    const attempts = await this.repo.listAttempts(this.deps.db, deliveries.map((d) => d.id));
    return { object: 'list' as const, has_more: false, data: deliveries.map((d) => toWebhookDeliveryObject(d, attempts)) };
  }

  /** An endpoint's latest deliveries (newest first) with every attempt; for the console. */
  async listRecentDeliveries(input: Scope & { endpointId: string; limit?: number }): Promise<WebhookDeliveryObject[]> {
    const deliveries = await this.repo.listRecentDeliveriesForEndpoint(this.deps.db, input, input.endpointId, input.limit ?? 10);
    const attempts = deliveries.length ? await this.repo.listAttempts(this.deps.db, deliveries.map((d) => d.id)) : [];
    return deliveries.map((d) => toWebhookDeliveryObject(d, attempts));
  }

  /** Sends an event again as a new delivery to its subscribed endpoints, or to one endpoint. */
  async redeliverEvent(input: Scope & { eventId: string; endpointId?: string }): Promise<ListObject<WebhookRedeliveryObject>> {
    const event = await this.getEvent(input);
    let endpoints;
    if (input.endpointId) {
      const e = await this.repo.getEndpointById(this.deps.db, input, input.endpointId);
      if (!e) throw referenceMissing('webhook endpoint', input.endpointId, 'endpoint_id');
      endpoints = [e];
    } else {
      endpoints = await this.repo.listSubscribedEndpoints(this.deps.db, input, event.type);
    }
    const deliveries = endpoints.map((e) => ({
      id: newId(IdPrefix.webhookDelivery),
      account_id: input.accountId,
      livemode: input.livemode,
      event_id: event.id,
      endpoint_id: e.id,
      url: e.url,
    }));
    await this.outbox.queueDeliveries(this.deps.db, deliveries);
    if (deliveries.length > 0) this.announceQueued();
    return { object: 'list' as const, has_more: false, data: deliveries.map((d) => ({ id: d.id, object: 'webhook_delivery', endpoint_id: d.endpoint_id, status: 'pending' })) };
  }
}
