import { z } from '../domain/api-schema';
import type { BatchCounts, MessageBatchRow } from './message-batch.repo';

const CountsSchema = z
  .object({
    queued: z.number().int(),
    sending: z.number().int(),
    sent: z.number().int(),
    delivered: z.number().int(),
    undelivered: z.number().int(),
    failed: z.number().int().describe('failed for any reason but an opt-out'),
    opted_out: z.number().int().describe('failed with recipient_opted_out'),
    canceled: z.number().int(),
  })
  .openapi('MessageBatchCounts');

const RejectionSchema = z.object({
  index: z.number().int().describe('position in the request\'s recipients'),
  param: z.string().describe('e.g. recipients.3.to'),
  code: z.string(),
  message: z.string(),
});

/** The message batch object: the API's response schema, the presenter's type and the OpenAPI entry. */
export const MessageBatchSchema = z
  .object({
    id: z.string().describe('mbat_ prefix'),
    object: z.literal('message_batch'),
    livemode: z.boolean(),
    status: z.enum(['processing', 'completed']).describe('completed once every message is final (message_batch.completed)'),
    from: z.string(),
    type: z.enum(['transactional', 'promotional']),
    body: z.string().describe('the body template'),
    send_at: z.string().nullable(),
    status_callback: z.string().nullable(),
    recipients: z.number().int().describe('messages queued'),
    rejected: z.array(RejectionSchema).describe('recipients left out (skip_invalid)'),
    counts: CountsSchema,
    created_at: z.string(),
    canceled_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .openapi('MessageBatch');

export type MessageBatchObject = z.infer<typeof MessageBatchSchema>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toMessageBatchObject = (b: MessageBatchRow, counts: BatchCounts): MessageBatchObject => ({
  id: b.id,
  object: 'message_batch',
  livemode: b.livemode,
  status: b.completed_at ? 'completed' : 'processing',
  from: b.from,
  type: b.type,
  body: b.body,
  send_at: iso(b.send_at),
  status_callback: b.status_callback,
  recipients: b.recipients,
  rejected: b.rejected,
  counts,
  created_at: b.created_at.toISOString(),
  canceled_at: iso(b.canceled_at),
  completed_at: iso(b.completed_at),
});
