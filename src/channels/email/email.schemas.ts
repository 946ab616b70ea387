import { z } from '../../domain/api-schema';
import type { EmailAddressRow, EmailMessageRow } from './email.repo';

/**
 * The email object: the `data` of email.delivered / bounced / opened / clicked / complained events. One
 * email of a conversation; `message_id` is the transcript message it carries, `smtp_message_id` its
 * RFC 5322 Message-ID.
 */
export const EmailSchema = z
  .object({
    id: z.string().describe('em_ prefix'),
    object: z.literal('email'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    conversation_id: z.string(),
    message_id: z.string().nullable().describe('the conversation message this email carries'),
    direction: z.enum(['inbound', 'outbound']),
    status: z.enum(['received', 'sending', 'delivered', 'bounced', 'failed']),
    from: z.string(),
    to: z.string(),
    subject: z.string(),
    smtp_message_id: z.string(),
    in_reply_to: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    delivered_at: z.string().nullable(),
    opened_at: z.string().nullable(),
    clicked_at: z.string().nullable(),
    complained_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('Email');

export type EmailObject = z.infer<typeof EmailSchema>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toEmailObject = (row: EmailMessageRow): EmailObject => ({
  id: row.id,
  object: 'email',
  livemode: row.livemode,
  conversation_id: row.conversation_id,
  message_id: row.conversation_message_id,
  direction: row.direction,
  status: row.status,
  from: row.from_address,
  to: row.to_address,
  subject: row.subject,
  smtp_message_id: `<${row.message_id}>`,
  in_reply_to: row.in_reply_to ? `<${row.in_reply_to}>` : null,
  error: row.error,
  delivered_at: iso(row.delivered_at),
  opened_at: iso(row.opened_at),
  clicked_at: iso(row.clicked_at),
  complained_at: iso(row.complained_at),
  created_at: row.created_at.toISOString(),
});

/** An inbound email address of the account (`/v1/email_addresses`). */
export const EmailAddressSchema = z
  .object({
    id: z.string().describe('ea_ prefix'),
    object: z.literal('email_address'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    address: z.string(),
    display_name: z.string().nullable(),
    agent_id: z.string().nullable().describe('live agent answering what arrives at the address'),
    created_at: z.string(),
  })
  .openapi('EmailAddress');

export type EmailAddressObject = z.infer<typeof EmailAddressSchema>;

export const toEmailAddressObject = (row: EmailAddressRow): EmailAddressObject => ({
  id: row.id,
  object: 'email_address',
  livemode: row.livemode,
  address: row.address,
  display_name: row.display_name,
  agent_id: row.agent_id,
  created_at: row.created_at.toISOString(),
});

/** What the inbound hook answers (the relay only needs the status; the ids help tracing). */
export const InboundEmailResultSchema = z.object({
  object: z.literal('inbound_email'),
  status: z.enum(['accepted', 'duplicate', 'ignored', 'bounce', 'complaint']),
  reason: z.string().nullable(),
  conversation_id: z.string().nullable(),
  message_id: z.string().nullable(),
});

export type InboundEmailResult = z.infer<typeof InboundEmailResultSchema>;
