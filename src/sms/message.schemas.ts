import { z } from '../domain/api-schema';
import type { MessageRow } from './message.repo';

export const MessageStatusSchema = z.enum(['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'canceled', 'received']);

/** The SMS message object: the API's response schema, the presenter's type and the OpenAPI entry. */
export const MessageSchema = z
  .object({
    id: z.string().describe('msg_ prefix'),
    object: z.literal('message'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    channel: z.string(),
    direction: z.enum(['outbound', 'inbound']),
    type: z.enum(['transactional', 'promotional']),
    to: z.string(),
    from: z.string(),
    body: z.string(),
    status: MessageStatusSchema,
    segments: z.number().int(),
    encoding: z.string().describe('GSM-7 or UCS-2'),
    price: z.string().nullable().describe('decimal string, set once charged (carrier acceptance)'),
    price_currency: z.string().nullable(),
    error_code: z.string().nullable().describe('set when undelivered or failed; see docs/sms-error-codes.md'),
    error_message: z.string().nullable(),
    reference: z.string().nullable(),
    message_batch_id: z.string().nullable().describe('the message batch it was sent in (mbat_), if any'),
    status_callback: z.string().nullable(),
    send_at: z.string().nullable(),
    carrier: z.string().nullable(),
    carrier_message_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    sent_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
  })
  .openapi('Message');

export type MessageObject = z.infer<typeof MessageSchema>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toMessageObject = (m: MessageRow): MessageObject => ({
  id: m.id,
  object: 'message',
  livemode: m.livemode,
  channel: m.channel,
  direction: m.direction,
  type: m.type,
  to: m.to,
  from: m.from,
  // A verification code is shown to nobody but its recipient.
  body: m.origin === 'verification' ? m.body.replace(/\d{4,10}/g, (d) => '*'.repeat(d.length)) : m.body,
  status: m.status,
  segments: m.segments,
  encoding: m.encoding,
  price: m.price,
  price_currency: m.price_currency,
  error_code: m.error_code,
  error_message: m.error_message,
  reference: m.reference,
  message_batch_id: m.message_batch_id ?? null,
  status_callback: m.status_callback,
  send_at: iso(m.send_at),
  carrier: m.carrier,
  carrier_message_id: m.carrier_message_ids?.[0] ?? null,
  created_at: m.created_at.toISOString(),
  updated_at: m.updated_at.toISOString(),
  sent_at: iso(m.sent_at),
  delivered_at: iso(m.delivered_at),
});
