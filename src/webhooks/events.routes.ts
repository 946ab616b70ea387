import { z } from 'zod';
import { defineRoute } from '../http/route';
import { IdParamsSchema, listOf, PageQuerySchema } from '../http/schemas';
import type { RouteDeps } from '../http/route-deps';
import type { EventsService } from './events.service';
import { EventSchema } from './event.schemas';
import { WebhookDeliverySchema, WebhookRedeliverySchema } from './webhook-delivery.schemas';
import { scopeOf } from '../domain/principal';

const ListEventsQuerySchema = PageQuerySchema.extend({ type: z.string().max(100).optional() });

export function registerEventRoutes({ router, registry, services }: RouteDeps<{ events: EventsService }>) {
  const tag = 'Events';
  const svc = services.events;

  defineRoute(router, registry, { method: 'get', path: '/v1/events', summary: 'List events, newest first', tag, query: ListEventsQuerySchema, response: listOf(EventSchema, 'EventList') },
    ({ query, principal }) => {
      const { type, ...page } = query;
      return svc.listEvents({ ...scopeOf(principal), page, type });
    });

  defineRoute(router, registry, { method: 'get', path: '/v1/events/{id}', summary: 'Retrieve an event', tag, params: IdParamsSchema, response: EventSchema },
    ({ params, principal }) => svc.getEvent({ ...scopeOf(principal), eventId: params.id }));

  defineRoute(router, registry, { method: 'get', path: '/v1/events/{id}/deliveries', summary: 'Deliveries of an event with every attempt', tag, params: IdParamsSchema, response: listOf(WebhookDeliverySchema, 'WebhookDeliveryList') },
    ({ params, principal }) => svc.listDeliveries({ ...scopeOf(principal), eventId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/events/{id}/redeliver', summary: 'Deliver an event again to its subscribed endpoints (or one endpoint)', tag, params: IdParamsSchema, body: z.strictObject({ endpoint_id: z.string().optional() }), response: listOf(WebhookRedeliverySchema, 'WebhookRedeliveryList') },
    ({ params, body, principal }) => svc.redeliverEvent({ ...scopeOf(principal), eventId: params.id, endpointId: body.endpoint_id }));
}
