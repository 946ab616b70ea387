import type { Kysely } from 'kysely';
import type { Config } from '../../config/env';
import type { ConversationRepo, ConversationRow } from '../../conversations/conversation.repo';
import type { ConversationMessageObject } from '../../conversations/conversation.schemas';
import type { DB } from '../../db/schema';
import { AppError } from '../../domain/errors';
import { derivedId, IdPrefix } from '../../domain/ids';
import type { Logger } from '../../observability/logger';
import type { EventsService } from '../../webhooks/events.service';
import type { ReplyChannel, ReplyToShape } from '../../conversations/reply-channels';
import { renderEmail, shapeEmailReplyText } from './email-format';
import { replyReferences, replySubject, threadSubjectKey } from './email-threading';
import type { EmailTrackingService } from './email-tracking.service';
import { EmailRepo, type EmailMessageRow } from './email.repo';
import { toEmailObject } from './email.schemas';
import type { SmtpSenderPort } from './smtp-sender';
import type { EmailDomainsService } from './email-domains.service';
import { newReturnPath } from './email-return-path';
import { emailFromName, signerOf } from '../../conversations/human-signature';

/** Subject of a conversation's first email when nothing named one (an API conversation on email). */
export const DEFAULT_SUBJECT = 'Your conversation with us';

/**
 * The email channel's reply side. A reply (an agent's, or a human's from the desk) becomes one email to
 * the address the customer last wrote from (else customer.email), from the address the customer wrote to (or the agent's, or EMAIL_FROM), on the
 * conversation's subject ("Re: …"), threaded with In-Reply-To / References under the conversation's latest
 * email, with a short quote of the customer's message and the cited sources linked.
 *
 * Sending is idempotent by the transcript message: its email row (with its Message-ID and its own return
 * path) is written before the SMTP transaction, and a row that left `sending` is never sent again. SMTP
 * 250 → `delivered` (email.delivered); 5xx → `bounced` (email.bounced); 4xx or no connection → an error
 * the activity retries (same row, same Message-ID).
 *
 * Test mode never reaches the relay: the sandbox takes the email (`delivered`, email.delivered, its
 * rendered text readable at GET /v1/emails/{id}). Live mode sends only from an address on a domain the
 * account has verified (or EMAIL_FROM, the operator's), DKIM-signed once the domain's key is published.
 * An email that was not handed to the relay says so: `failed` with its code (`no_recipient`,
 * `smtp_not_configured`, `domain_not_verified`) and email.failed.
 */
export class EmailReplyChannel implements ReplyChannel {
  readonly channel = 'email' as const;
  private readonly repo = new EmailRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      config: Config;
      events: EventsService;
      conversations: ConversationRepo;
      tracking: EmailTrackingService;
      domains: EmailDomainsService;
      /** Undefined when no SMTP server is configured. */
      sender?: SmtpSenderPort;
      log: Logger;
    },
  ) {}

  async shapeReply(input: ReplyToShape): Promise<string> {
    return shapeEmailReplyText(input.text, input.sources);
  }

  async deliverReply(input: { conversation: ConversationRow; message: ConversationMessageObject; runId: string | null }): Promise<void> {
    const { db, config } = this.deps;
    const { conversation, message } = input;
    const done = await this.repo.getEmailOfMessage(db, message.id);
    if (done && done.status !== 'sending') return;

    const emails = (await this.repo.listEmailsOfConversation(db, conversation.id)).filter((e) => e.conversation_message_id !== message.id);
    const lastInbound = [...emails].reverse().find((e) => e.direction === 'inbound');
    const parent = lastInbound ?? emails[emails.length - 1];
    const from = await this.fromAddress(conversation, lastInbound);
    // The address the customer last wrote from, else the conversation's customer.email.
    const to = lastInbound?.from_address ?? (typeof conversation.customer.email === 'string' ? conversation.customer.email.trim() : '');
    const firstSubject = emails[0]?.subject ?? (typeof conversation.metadata.subject === 'string' ? conversation.metadata.subject : DEFAULT_SUBJECT);
    const subject = parent ? replySubject(firstSubject) : firstSubject;
    const references = parent ? replyReferences({ messageId: parent.message_id, references: parent.references, inReplyTo: parent.in_reply_to }) : [];

    const { row } = done
      ? { row: done }
      : await this.repo.insertEmail(db, {
          id: derivedId(IdPrefix.email, message.id),
          account_id: conversation.account_id,
          livemode: conversation.livemode,
          conversation_id: conversation.id,
          conversation_message_id: message.id,
          direction: 'outbound',
          message_id: `${message.id}@${config.email.messageIdDomain}`,
          in_reply_to: parent?.message_id ?? null,
          references: JSON.stringify(references),
          subject,
          thread_subject: threadSubjectKey(subject),
          from_address: from.address,
          to_address: to,
          customer_address: to,
          status: 'sending',
          return_path: newReturnPath(config.email.returnPathDomain),
          error: null,
        });
    if (row.status !== 'sending') return;

    if (!to) return this.settle(row, 'failed', { code: 'no_recipient', message: 'The conversation has no customer.email to send to' });
    // Test mode: the sandbox takes it (its content is rendered when read); nothing leaves the process.
    if (!conversation.livemode) return this.settle(row, 'delivered', null);
    if (!this.deps.sender) return this.settle(row, 'failed', { code: 'smtp_not_configured', message: 'No SMTP relay is configured (SMTP_HOST): the email was not sent' });
    const scope = { accountId: conversation.account_id, livemode: conversation.livemode };
    const fromDomain = row.from_address.slice(row.from_address.lastIndexOf('@') + 1);
    const operatorFrom = row.from_address.toLowerCase() === config.email.from.toLowerCase();
    if (!operatorFrom && !(await this.deps.domains.isVerified({ ...scope, domain: fromDomain }))) {
      return this.settle(row, 'failed', { code: 'domain_not_verified', message: `${fromDomain} is not a verified domain of the account: the email was not sent` });
    }
    const dkim = operatorFrom ? undefined : await this.deps.domains.signingKeyFor({ ...scope, domain: fromDomain });
    const { text, html } = await this.render(conversation, message, row);

    const sent = await this.deps.sender.send({
      // A person's reply carries their name: "Dana at Shop" (the transcript shows the same author).
      from: { address: row.from_address, name: emailFromName(signerOf(message), from.name) },
      to: row.to_address,
      subject: row.subject,
      messageId: row.message_id,
      inReplyTo: row.in_reply_to ?? undefined,
      references: row.references,
      text,
      html,
      // RFC 3834: an agent's reply and the handoff notice (system) are automatic (vacation responders do not
      // answer them); a human's is not.
      headers: message.role === 'agent' || message.role === 'system' ? { 'Auto-Submitted': 'auto-replied' } : undefined,
      returnPath: row.return_path ?? undefined,
      dkim,
    });
    if (sent.outcome === 'accepted') return this.settle(row, 'delivered', null);
    if (sent.outcome === 'rejected') return this.settle(row, 'bounced', { code: `smtp_${sent.responseCode}`, message: sent.response.slice(0, 500) });
    this.deps.log.warn({ emailId: row.id, conversationId: conversation.id }, 'SMTP send deferred; the activity retries');
    throw new AppError('upstream_unavailable', `The SMTP server did not take the email: ${sent.response.slice(0, 300)}`);
  }

  /**
   * The text and HTML of an outbound email as it is (or would be) sent: the transcript message, a short
   * quote of the customer message it answers, tracked links. Rendered again on demand (the sandbox's
   * reads), so no email body is stored beside the transcript.
   */
  async renderSentEmail(row: EmailMessageRow): Promise<{ text: string; html: string } | undefined> {
    if (row.direction !== 'outbound' || !row.conversation_message_id) return undefined;
    const { db } = this.deps;
    const [conversation, message] = await Promise.all([this.deps.conversations.getConversation(db, row.conversation_id), this.deps.conversations.getMessage(db, row.conversation_message_id)]);
    if (!conversation || !message) return undefined;
    return this.render(conversation, { id: message.id, content: message.content }, row);
  }

  private async render(conversation: ConversationRow, message: { id: string; content: string }, row: EmailMessageRow) {
    const { config } = this.deps;
    const quoted = await this.customerMessageBefore(conversation, message.id);
    return renderEmail({
      content: message.content,
      quoted: quoted && { text: quoted.content, from: row.to_address, date: quoted.created_at },
      trackLink: config.email.trackClicks ? (url) => this.deps.tracking.clickUrl(row.id, url) : undefined,
      pixelUrl: config.email.trackOpens ? this.deps.tracking.openUrl(row.id) : undefined,
    });
  }

  /** Leaves `sending` for good and emits the matching event (email.delivered, email.bounced, email.failed) in the same transaction (once). */
  private async settle(row: EmailMessageRow, status: 'delivered' | 'bounced' | 'failed', error: { code: string; message: string } | null) {
    await this.deps.events.transaction(async (tx) => {
      const settled = await this.repo.settleEmail(tx, row.id, status, error);
      if (!settled) return;
      const type = `email.${status}`;
      const data = status === 'bounced' ? { ...toEmailObject(settled), bounce: { type: 'hard', source: 'smtp', recipient: settled.to_address, diagnostic: error?.message ?? null } } : toEmailObject(settled);
      await this.deps.events.emit({ accountId: settled.account_id, livemode: settled.livemode, type, data, eventId: derivedId(IdPrefix.event, settled.id, type) }, { tx });
    });
    if (status === 'failed') this.deps.log.warn({ emailId: row.id, code: error?.code }, 'Email not sent');
  }

  /** The address the customer last wrote to, else the agent's address, else EMAIL_FROM. */
  private async fromAddress(conversation: ConversationRow, lastInbound: EmailMessageRow | undefined): Promise<{ address: string; name: string | null }> {
    const { db } = this.deps;
    const scope = { accountId: conversation.account_id, livemode: conversation.livemode };
    const own = lastInbound ? await this.repo.findAddress(db, [lastInbound.to_address], scope) : undefined;
    const address = own ?? (conversation.agent_id === null ? undefined : await this.repo.findAddressOfAgent(db, scope, conversation.agent_id));
    return address ? { address: address.address, name: address.display_name } : { address: this.deps.config.email.from, name: null };
  }

  /** The customer's latest message before this one (what the reply answers), for the quote. */
  private async customerMessageBefore(conversation: ConversationRow, messageId: string) {
    const { db } = this.deps;
    const message = await this.deps.conversations.getMessage(db, messageId);
    if (!message) return undefined;
    const before = await this.deps.conversations.listTranscriptBefore(db, conversation.id, message.seq, 10);
    return [...before].reverse().find((m) => m.role === 'customer');
  }
}
