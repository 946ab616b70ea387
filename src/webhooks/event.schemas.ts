import { z } from '../domain/api-schema';

/**
 * The event object: the API's response schema, the presenter's type, the OpenAPI entry and the body of
 * every webhook delivery.
 */
export const EventSchema = z
  .object({ id: z.string(), object: z.literal('event'), livemode: z.boolean().describe('true in live mode, false in test mode'), type: z.string(), created_at: z.string(), data: z.record(z.string(), z.unknown()) })
  .openapi('Event');

export type EventObject = z.infer<typeof EventSchema>;

export const toEventObject = (row: { id: string; livemode: boolean; type: string; created_at: Date; data: Record<string, unknown> }): EventObject => ({
  id: row.id,
  object: 'event',
  livemode: row.livemode,
  type: row.type,
  created_at: row.created_at.toISOString(),
  data: row.data,
});
