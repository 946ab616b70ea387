import type { Selectable } from 'kysely';
import type { WebhookAttemptTable, WebhookDeliveryTable } from '../db/tables/events';
import { z } from '../domain/api-schema';

export const WebhookDeliveryAttemptSchema = z.object({
  attempt: z.number().int(),
  started_at: z.string(),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  outcome: z.enum(['delivered', 'retryable', 'permanent']),
  error: z.string().nullable(),
});

/** One event's delivery to one endpoint (or status callback URL), with every attempt. */
export const WebhookDeliverySchema = z
  .object({
    id: z.string().describe('whd_ prefix'),
    object: z.literal('webhook_delivery'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    event_id: z.string(),
    endpoint_id: z.string().nullable().describe('null for a delivery to a status_callback URL'),
    url: z.string(),
    status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
    attempt_count: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    attempts: z.array(WebhookDeliveryAttemptSchema),
  })
  .openapi('WebhookDelivery');

export type WebhookDeliveryObject = z.infer<typeof WebhookDeliverySchema>;

/** What redelivering an event answers per new delivery: it has not been attempted yet. */
export const WebhookRedeliverySchema = WebhookDeliverySchema.pick({ id: true, object: true, endpoint_id: true, status: true }).openapi('WebhookRedelivery');

export type WebhookRedeliveryObject = z.infer<typeof WebhookRedeliverySchema>;

export const toWebhookDeliveryObject = (
  d: Selectable<WebhookDeliveryTable>,
  attempts: Selectable<WebhookAttemptTable>[],
): WebhookDeliveryObject => ({
  id: d.id,
  object: 'webhook_delivery',
  livemode: d.livemode,
  event_id: d.event_id,
  endpoint_id: d.endpoint_id,
  url: d.url,
  status: d.status,
  attempt_count: d.attempt_count,
  last_status_code: d.last_status_code,
  last_error: d.last_error,
  created_at: d.created_at.toISOString(),
  completed_at: d.completed_at?.toISOString() ?? null,
  attempts: attempts
    .filter((a) => a.delivery_id === d.id)
    .map((a) => ({
      attempt: a.attempt,
      started_at: a.started_at.toISOString(),
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      outcome: a.outcome,
      error: a.error,
    })),
});
