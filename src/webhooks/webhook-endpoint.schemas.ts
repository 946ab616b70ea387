import type { Selectable } from 'kysely';
import type { WebhookEndpointTable } from '../db/tables/events';
import { z } from '../domain/api-schema';

/** The webhook endpoint object: the API's response schema, the presenter's type and the OpenAPI entry. */
export const WebhookEndpointSchema = z
  .object({
    id: z.string(),
    object: z.literal('webhook_endpoint'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
    signing_secret: z.string().optional().describe('whsec_ secret; returned on creation and rotation only'),
    previous_secret_expires_at: z.string().nullable().describe('while a rotated-out secret still signs beside the current one (two v1= in Service-Signature), when it stops'),
  })
  .openapi('WebhookEndpoint');

export type WebhookEndpointObject = z.infer<typeof WebhookEndpointSchema>;

/** The secret is shown on creation and rotation only (`withSecret`). */
export const toWebhookEndpointObject = (row: Selectable<WebhookEndpointTable>, withSecret = false): WebhookEndpointObject => ({
  id: row.id,
  object: 'webhook_endpoint',
  livemode: row.livemode,
  url: row.url,
  description: row.description,
  events: row.events,
  enabled: row.enabled,
  metadata: row.metadata,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
  ...(withSecret ? { signing_secret: row.secret } : {}),
  previous_secret_expires_at:
    row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at > new Date() ? row.previous_secret_expires_at.toISOString() : null,
});
