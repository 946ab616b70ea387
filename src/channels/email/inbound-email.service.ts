import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../../config/env';
import type { InboundChannelPort } from '../../domain/channels';
import type { ConversationInbox } from '../channel-ports';
import type { DB } from '../../db/schema';
import { AppError } from '../../domain/errors';
import { derivedId, IdPrefix } from '../../domain/ids';
import { SIGNATURE_HEADER, signatureHeaderPlausible, verifySignatureHeader } from '../../domain/signature';
import type { Logger } from '../../observability/logger';
import type { EventsService } from '../../webhooks/events.service';
import { redactText } from '../../privacy/redaction';
import { parseInboundEmail, type InboundEmail, type InboundEmailReport } from './email-mime';
import { threadSubjectKey } from './email-threading';
import { EmailRepo } from './email.repo';
import { EmailDomainRepo } from './email-domain.repo';
import { asReturnPath } from './email-return-path';
import { toEmailObject, type InboundEmailResult } from './email.schemas';
import { sameScope, type Scope } from '../../domain/principal';

/** Placeholder text of an email with no text of its own (attachments only, or empty). */
const NO_TEXT = '(no text)';

/**
 * The email channel's inbound side: raw MIME posted by the mail relay to the inbound hook, signed with
 * EMAIL_INBOUND_SECRET (Service-Signature, the same scheme as our webhooks).
 *
 * - The relay's mail reaches live addresses only, on a domain their account has verified (test-mode
 *   addresses are reached through the test helper, as test numbers through the sandbox).
 * - A customer's email to a registered address with a live agent attached continues its thread's
 *   conversation (matched by In-Reply-To / References against the emails we know, then by subject with
 *   the same customer), else the customer's open conversation with that agent (same email, whatever
 *   channel it was on), else a new email conversation; the run answers by email. With no agent attached
 *   the mail reaches the inbox as the team's conversation (handed off, unread; a teammate answers by email).
 * - A delivery status notification (multipart/report; delivery-status) at the return path (VERP) of one
 *   of our emails: that email bounced.
 * - A feedback report (multipart/report; feedback-report, ARF) at the return path of the email it names,
 *   or at an address of the account that sent it: complained.
 * - Anything else (no registered recipient, auto-replies, mail from our own addresses) is
 *   acknowledged and ignored; a Message-ID seen before is acknowledged as a duplicate (relay retries).
 */
/** The API's cap on a message's content (conversations.routes.ts): an email's text is cut to fit it. */
export const EMAIL_TEXT_MAX_CHARS = 20_000;

/**
 * An email's text within `max` characters: longer text (most often a long quoted history) is cut at a
 * line break where one is near, never inside a surrogate pair, with a note saying how much was left out.
 */
export function capEmailText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = (n: number) => `\n\n[… ${n} more characters not shown]`;
  const room = max - note(text.length).length;
  let cut = text.lastIndexOf('\n', room);
  if (cut < room - 500) cut = room;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut).trimEnd()}${note(text.length - cut)}`;
}

export class InboundEmailService implements InboundChannelPort<{ rawBody: Buffer; signature: string | undefined }, InboundEmailResult> {
  readonly channel = 'email' as const;
  private readonly repo = new EmailRepo();
  private readonly domains = new EmailDomainRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      config: Config;
      conversations: ConversationInbox;
      events: EventsService;
      log: Logger;
    },
  ) {}

  /**
   * What can be checked before a byte of the body is read (the route calls it first, so an unsigned 9 MB
   * post is refused at once): 403 when the hook has no secret, 401 when the header is missing, malformed
   * or its timestamp more than 5 minutes away. Returns the secret.
   */
  checkSignatureHeader(input: { signature: string | undefined }): string {
    const secret = this.deps.config.email.inboundSecret;
    if (!secret) throw new AppError('permission_denied', 'Inbound email is not enabled on this server (EMAIL_INBOUND_SECRET is not set)');
    if (!input.signature) throw new AppError('signature_missing', `The inbound hook needs a ${SIGNATURE_HEADER} header`);
    if (!signatureHeaderPlausible(input.signature)) {
      throw new AppError('signature_invalid', `The ${SIGNATURE_HEADER} header is malformed, or its timestamp is more than 5 minutes away`);
    }
    return secret;
  }

  /** Checks the relay's signature over the exact bytes received: 401 when missing or wrong, 403 when the hook has no secret. */
  verifySignature(input: { rawBody: Buffer; signature: string | undefined }): void {
    const secret = this.checkSignatureHeader(input);
    if (!verifySignatureHeader(secret, input.rawBody, input.signature!)) {
      throw new AppError('signature_invalid', `The ${SIGNATURE_HEADER} header does not match the body, or its timestamp is more than 5 minutes away`);
    }
  }

  /** The inbound port: the relay's POST of one raw email (signature checked first). */
  async receiveInbound(input: { rawBody: Buffer; signature: string | undefined }): Promise<InboundEmailResult> {
    this.verifySignature(input);
    return this.receiveRaw(input.rawBody);
  }

  /**
   * A test helper's email (test mode): taken as the relay's post would be, without a signature, and only
   * to the scope's addresses or about the scope's emails (anything else is ignored, with the reason).
   */
  async receiveTestEmail(input: { rawBody: Buffer; scope: Scope }): Promise<InboundEmailResult> {
    return this.receiveRaw(input.rawBody, input.scope);
  }

  private async receiveRaw(raw: Buffer, scope?: Scope): Promise<InboundEmailResult> {
    let email: InboundEmail;
    try {
      email = await parseInboundEmail(raw);
    } catch (err) {
      throw new AppError('parameter_invalid', 'The body is not a MIME message', { cause: err, param: scope ? 'raw' : undefined });
    }
    if (email.report) return this.receiveReport(email, email.report, scope);
    return this.receiveCustomerEmail(email, raw, scope);
  }

  private async receiveCustomerEmail(email: InboundEmail, raw: Buffer, onlyScope?: Scope): Promise<InboundEmailResult> {
    const { db } = this.deps;
    const ignored = (reason: string): InboundEmailResult => {
      this.deps.log.info({ reason, recipients: email.recipients.length }, 'Inbound email ignored');
      return { object: 'inbound_email', status: 'ignored', reason, conversation_id: null, message_id: null };
    };
    const address = onlyScope ? await this.repo.findAddress(db, email.recipients, onlyScope) : await this.repo.findLiveAddress(db, email.recipients);
    if (!address) return ignored('no registered recipient address');
    // Live mail is received only for a domain its address's account has proven (it may have lost it since).
    const addressDomain = address.address.slice(address.address.lastIndexOf('@') + 1);
    if (address.livemode && !(await this.domains.findVerifiedCovering(db, { accountId: address.account_id, livemode: true }, addressDomain))) {
      return ignored("the recipient address's domain is not verified by its account");
    }
    if (!email.from) return ignored('no sender address');
    // The email takes the mode of the address it reached.
    const scope = { accountId: address.account_id, livemode: address.livemode };
    // A reply loop is mail from one of the receiving account's own addresses (in the mode it reached):
    // another account's address, or a test-mode one, says nothing about who sent this.
    if (await this.repo.findAddress(db, [email.from.address], scope)) return ignored('sent from one of our own addresses');
    if (email.automated) return ignored('automatically submitted (Auto-Submitted or Precedence)');

    // A message without a Message-ID gets one from its content, so a relay's retry is still a duplicate.
    const messageId = email.messageId ?? `${createHash('sha256').update(raw).digest('hex').slice(0, 32)}@inbound.invalid`;
    const seen = await this.repo.findByMessageIds(db, scope, [messageId]);
    if (seen) return { object: 'inbound_email', status: 'duplicate', reason: null, conversation_id: seen.conversation_id, message_id: seen.conversation_message_id };

    // The subject is stored and matched redacted (its thread key too, so a card in it is never at rest).
    const subject = redactText(email.subject).text;
    const threadKey = threadSubjectKey(subject);
    // A thread belongs to one customer: a known Message-ID quoted by another sender (a CC, a forward) does
    // not let that sender into the conversation (its transcript is the planner's context).
    const named = await this.repo.findByMessageIds(db, scope, [...(email.inReplyTo ? [email.inReplyTo] : []), ...email.references]);
    const byHeaders = named && named.customer_address.toLowerCase() === email.from.address.toLowerCase() ? named : undefined;
    const bySubject =
      byHeaders || !threadKey
        ? undefined
        : await this.repo.findThreadBySubject(db, { scope, agentId: address.agent_id ?? null, customerAddress: email.from.address, threadSubject: threadKey });
    const thread = byHeaders ?? bySubject;

    const attachmentNote = email.attachments.length > 0 ? `\n\n[${email.attachments.length} attachment(s) not shown: ${email.attachments.map((a) => a.filename ?? a.contentType).join(', ')}]` : '';
    const content = `${capEmailText(email.text.trim(), EMAIL_TEXT_MAX_CHARS - attachmentNote.length)}${attachmentNote}`.trim() || NO_TEXT;
    const from = email.from;
    let duplicate = false;
    try {
      const received = await this.deps.conversations.receiveCustomerMessage({
        ...scope,
        // No agent attached: the mail reaches the inbox as the team's conversation (a plain human inbox).
        agentId: address.agent_id ?? null,
        channel: 'email',
        customer: { email: from.address, name: from.name || undefined },
        content,
        conversationId: thread?.conversation_id,
        recordWithMessage: async (tx, m) => {
          const stored = await this.repo.insertEmail(tx, {
            id: derivedId(IdPrefix.email, m.messageId),
            account_id: address.account_id,
            livemode: address.livemode,
            conversation_id: m.conversationId,
            conversation_message_id: m.messageId,
            direction: 'inbound',
            message_id: messageId,
            in_reply_to: email.inReplyTo,
            references: JSON.stringify(email.references),
            subject,
            thread_subject: threadKey,
            from_address: from.address,
            to_address: address.address,
            customer_address: from.address,
            status: 'received',
            error: null,
          });
          if (!stored.inserted) {
            duplicate = true;
            throw new AppError('resource_conflict', `Email <${messageId}> was already received`);
          }
        },
      });
      return { object: 'inbound_email', status: 'accepted', reason: null, conversation_id: received.conversation.id, message_id: received.message.id };
    } catch (err) {
      if (!duplicate) throw err;
      const again = await this.repo.findByMessageIds(db, scope, [messageId]);
      return { object: 'inbound_email', status: 'duplicate', reason: null, conversation_id: again?.conversation_id ?? null, message_id: again?.conversation_message_id ?? null };
    }
  }

  /** A bounce (DSN) or a complaint (ARF) about one of our emails: its state and the event, once. */
  private async receiveReport(email: InboundEmail, report: InboundEmailReport, onlyScope?: Scope): Promise<InboundEmailResult> {
    const { db, events } = this.deps;
    const kind = report.type === 'delivery_status' ? 'bounce' : 'complaint';
    const ignored = (reason: string): InboundEmailResult => ({ object: 'inbound_email', status: 'ignored', reason, conversation_id: null, message_id: null });
    // The return path (VERP) the report reached names the email; the Message-ID it quotes must agree.
    const returnPaths = email.recipients.map((r) => asReturnPath(r, this.deps.config.email.returnPathDomain)).filter((r): r is string => r !== undefined);
    const atReturnPath = await this.repo.findByReturnPath(db, returnPaths);
    let found = atReturnPath;
    if (atReturnPath) {
      if (report.originalMessageId && report.originalMessageId !== atReturnPath.message_id) return ignored(`the ${kind} names another email than the one whose return path it reached`);
    } else if (report.type === 'delivery_status') {
      return ignored('a bounce is accepted only at the return path of the email it reports');
    } else {
      // A feedback loop may report to an address of the sender rather than the return path: one of the
      // sending account's own addresses (in its mode), never just any.
      found = report.originalMessageId ? await this.repo.findOutboundByMessageId(db, report.originalMessageId) : undefined;
      const to = found && (await this.repo.findAddress(db, email.recipients, { accountId: found.account_id, livemode: found.livemode }));
      if (found && !to) return ignored(`the ${kind} did not reach an address of the account that sent the email`);
    }
    const original = found && (!onlyScope || sameScope({ accountId: found.account_id, livemode: found.livemode }, onlyScope)) ? found : undefined;
    if (!original) return ignored(`the ${kind} names no email we sent`);
    const result: InboundEmailResult = { object: 'inbound_email', status: kind, reason: null, conversation_id: original.conversation_id, message_id: original.conversation_message_id };

    if (report.type === 'delivery_status') {
      const failed = report.recipients.find((r) => r.action === 'failed');
      if (!failed) return { ...result, status: 'ignored', reason: 'the delivery status reports no failure (delayed or delivered)' };
      const hard = failed.status.startsWith('5');
      const error = { code: `dsn_${failed.status || 'failed'}`, message: (failed.diagnostic ?? `Delivery failed (${failed.status})`).slice(0, 500) };
      await events.transaction(async (tx) => {
        const row = await this.repo.markBounced(tx, original.id, error);
        if (!row) return;
        const data = { ...toEmailObject(row), bounce: { type: hard ? 'hard' : 'soft', source: 'dsn', recipient: failed.recipient, status: failed.status, diagnostic: failed.diagnostic } };
        await events.emit({ accountId: row.account_id, livemode: row.livemode, type: 'email.bounced', data, eventId: derivedId(IdPrefix.event, row.id, 'email.bounced') }, { tx });
      });
      return result;
    }

    const row = await this.repo.markEngagement(db, original.id, 'complained_at');
    if (row) {
      await events.emit({
        accountId: row.account_id,
        livemode: row.livemode,
        type: 'email.complained',
        data: { ...toEmailObject(row), feedback_type: report.feedbackType, user_agent: report.userAgent },
        eventId: derivedId(IdPrefix.event, row.id, 'email.complained'),
      });
    }
    return result;
  }
}
