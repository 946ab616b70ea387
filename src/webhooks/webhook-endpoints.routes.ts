import { z } from 'zod';
import { defineRoute } from '../http/route';
import { DeletedSchema, HttpUrlSchema, IdParamsSchema, listOf, MetadataSchema, PageQuerySchema, RotateSecretBodySchema } from '../http/schemas';
import type { RouteDeps } from '../http/route-deps';
import type { WebhookEndpointsService } from './webhook-endpoints.service';
import { EventSchema } from './event.schemas';
import { toWebhookEndpointObject, WebhookEndpointSchema } from './webhook-endpoint.schemas';
import { scopeOf } from '../domain/principal';

const EventTypesSchema = z
  .array(z.string().regex(/^(\*|[a-z_]+(\.[a-z_]+)+)$/, 'an event type such as message.updated, or *'))
  .min(1)
  .max(50);

const CreateBodySchema = z.strictObject({
  url: HttpUrlSchema,
  events: EventTypesSchema,
  description: z.string().max(500).optional(),
  enabled: z.boolean().optional(),
  metadata: MetadataSchema.optional(),
});

const UpdateBodySchema = z.strictObject({
  url: HttpUrlSchema.optional(),
  events: EventTypesSchema.optional(),
  description: z.string().max(500).nullable().optional(),
  enabled: z.boolean().optional(),
  metadata: MetadataSchema.optional(),
});

export function registerWebhookEndpointRoutes({ router, registry, services }: RouteDeps<{ webhookEndpoints: WebhookEndpointsService }>) {
  const tag = 'Webhooks';
  const svc = services.webhookEndpoints;

  defineRoute(router, registry, { method: 'post', path: '/v1/webhook_endpoints', summary: 'Create a webhook endpoint', tag, body: CreateBodySchema, response: WebhookEndpointSchema, status: 201 },
    ({ body, principal }) => svc.createEndpoint({ principal, ...body }));

  defineRoute(router, registry, { method: 'get', path: '/v1/webhook_endpoints', summary: 'List webhook endpoints', tag, query: PageQuerySchema, response: listOf(WebhookEndpointSchema, 'WebhookEndpointList') },
    ({ query, principal }) => svc.listEndpoints({ ...scopeOf(principal), page: query }));

  defineRoute(router, registry, { method: 'get', path: '/v1/webhook_endpoints/{id}', summary: 'Retrieve a webhook endpoint', tag, params: IdParamsSchema, response: WebhookEndpointSchema },
    async ({ params, principal }) => toWebhookEndpointObject(await svc.getEndpoint({ ...scopeOf(principal), endpointId: params.id })));

  defineRoute(router, registry, { method: 'post', path: '/v1/webhook_endpoints/{id}', summary: 'Update a webhook endpoint (url, events, enabled, description, metadata)', tag, params: IdParamsSchema, body: UpdateBodySchema, response: WebhookEndpointSchema },
    ({ params, body, principal }) => svc.updateEndpoint({ principal, endpointId: params.id, patch: body }));

  defineRoute(router, registry, { method: 'delete', path: '/v1/webhook_endpoints/{id}', summary: 'Delete a webhook endpoint; its pending deliveries stop', tag, params: IdParamsSchema, response: DeletedSchema },
    ({ params, principal }) => svc.deleteEndpoint({ ...scopeOf(principal), endpointId: params.id }));

  defineRoute(router, registry, { method: 'post', path: '/v1/webhook_endpoints/{id}/rotate_secret', summary: 'Replace the signing secret; the old one keeps signing beside it for the grace period', tag, params: IdParamsSchema, body: RotateSecretBodySchema, response: WebhookEndpointSchema },
    ({ params, principal, body }) => svc.rotateSecret({ ...scopeOf(principal), endpointId: params.id, gracePeriodSeconds: body.grace_period_seconds }));

  defineRoute(router, registry, { method: 'post', path: '/v1/webhook_endpoints/{id}/test', summary: 'Send a signed webhook_endpoint.test event to this endpoint', tag, params: IdParamsSchema, response: EventSchema },
    ({ params, principal }) => svc.sendTestEvent({ ...scopeOf(principal), endpointId: params.id }));
}
