import { z } from '../../domain/api-schema';
import type { EmailAddressRow, EmailMessageRow } from './email.repo';
import type { EmailDomainRow } from './email-domain.repo';
import { dkimRecordName, dkimRecordValue, ownershipRecordName, ownershipRecordValue } from './email-domain-records';

/**
 * The email object: the `data` of email.delivered / bounced / failed / opened / clicked / complained
 * events, and of `GET /v1/emails`. One email of a conversation; `message_id` is the transcript message it
 * carries, `smtp_message_id` its RFC 5322 Message-ID.
 */
export const EmailSchema = z
  .object({
    id: z.string().describe('em_ prefix'),
    object: z.literal('email'),
    livemode: z.boolean().describe('true in live mode, false in test mode'),
    conversation_id: z.string(),
    message_id: z.string().nullable().describe('the conversation message this email carries'),
    direction: z.enum(['inbound', 'outbound']),
    status: z
      .enum(['received', 'sending', 'delivered', 'bounced', 'failed'])
      .describe('outbound: sending → delivered (the relay, or the test-mode sandbox, took it) | bounced | failed (never handed to a relay: see error.code)'),
    sandbox: z.boolean().describe('a test-mode email sent to the sandbox: it never reached a relay'),
    from: z.string(),
    to: z.string(),
    subject: z.string(),
    smtp_message_id: z.string(),
    in_reply_to: z.string().nullable(),
    return_path: z.string().nullable().describe('outbound: the envelope sender (VERP), the only address its bounces are accepted at'),
    error: z.object({ code: z.string(), message: z.string() }).nullable().describe('why it failed or bounced: no_recipient, smtp_not_configured, domain_not_verified, smtp_<code>, dsn_<status>'),
    delivered_at: z.string().nullable(),
    opened_at: z.string().nullable(),
    clicked_at: z.string().nullable(),
    complained_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('Email');

export type EmailObject = z.infer<typeof EmailSchema>;

/** An email as `GET /v1/emails/{id}` shows it: with what an outbound email says (the sandbox's outbox). */
export const EmailWithContentSchema = EmailSchema.extend({
  content: z
    .object({ text: z.string(), html: z.string() })
    .nullable()
    .describe('outbound: the text and HTML alternatives as sent (or, in test mode, as the sandbox took them); null inbound (the transcript holds the text)'),
}).openapi('EmailWithContent');
export type EmailWithContent = z.infer<typeof EmailWithContentSchema>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toEmailObject = (row: EmailMessageRow): EmailObject => ({
  id: row.id,
  object: 'email',
  livemode: row.livemode,
  conversation_id: row.conversation_id,
  message_id: row.conversation_message_id,
  direction: row.direction,
  status: row.status,
  sandbox: !row.livemode && row.direction === 'outbound',
  from: row.from_address,
  to: row.to_address,
  subject: row.subject,
  smtp_message_id: `<${row.message_id}>`,
  in_reply_to: row.in_reply_to ? `<${row.in_reply_to}>` : null,
  return_path: row.return_path,
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

const DnsRecordSchema = z.object({
  purpose: z.enum(['ownership', 'dkim']).describe('ownership: proves the domain is yours (required); dkim: lets receivers check the signature of your mail'),
  type: z.literal('TXT'),
  name: z.string().describe('the DNS name to publish the record at'),
  value: z.string().describe('the exact text of the record'),
  status: z.enum(['pending', 'verified']),
});

/** A domain the account proves it owns (`/v1/email_domains`): live mail goes out from, and comes in for, its addresses only once verified. */
export const EmailDomainSchema = z
  .object({
    id: z.string().describe('edom_ prefix'),
    object: z.literal('email_domain'),
    livemode: z.boolean().describe('true in live mode, false in test mode (a test-mode domain claims nothing)'),
    domain: z.string(),
    status: z.enum(['pending', 'verified']).describe('verified once the ownership record was found (POST …/verify)'),
    dns_records: z.array(DnsRecordSchema).describe('the records to publish: ownership (required), dkim (signing)'),
    verified_at: z.string().nullable(),
    dkim_verified_at: z.string().nullable().describe('set once the DKIM record was found: live mail from the domain is signed from then on'),
    last_checked_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('EmailDomain');

export type EmailDomainObject = z.infer<typeof EmailDomainSchema>;

export const toEmailDomainObject = (row: EmailDomainRow): EmailDomainObject => ({
  id: row.id,
  object: 'email_domain',
  livemode: row.livemode,
  domain: row.domain,
  status: row.verified_at ? 'verified' : 'pending',
  dns_records: [
    { purpose: 'ownership', type: 'TXT', name: ownershipRecordName(row.domain), value: ownershipRecordValue(row.verification_token), status: row.verified_at ? 'verified' : 'pending' },
    { purpose: 'dkim', type: 'TXT', name: dkimRecordName(row.domain, row.dkim_selector), value: dkimRecordValue(row.dkim_public_key), status: row.dkim_verified_at ? 'verified' : 'pending' },
  ],
  verified_at: iso(row.verified_at),
  dkim_verified_at: iso(row.dkim_verified_at),
  last_checked_at: iso(row.last_checked_at),
  created_at: row.created_at.toISOString(),
});
