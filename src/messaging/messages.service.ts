import type { Kysely } from 'kysely';
import { countryOf, classifySender, parseRecipient } from '../channels/sms/addresses';
import { CarrierError, type CarrierListener, type DeliveryReceipt, type InboundSms, type SubmitSmsRequest, type SubmitSmsResult } from '../channels/sms/carrier';
import { classifyKeyword, OPT_IN_REPLY, OPT_OUT_REPLY } from '../channels/sms/keywords';
import { priceMessage } from '../channels/sms/pricing';
import { quietHoursHoldUntil } from '../channels/sms/quiet-hours';
import { segmentSms } from '../channels/sms/segmenter';
import { SendBatcher } from '../channels/sms/send-batcher';
import type { Config } from '../config/env';
import { MessageRepo, type MessageRow, type ReceiptRow } from './message.repo';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import type { MessageOrigin, MessageStatus, MessageType } from '../db/tables/sms';
import { AppError, notFound } from '../domain/errors';
import { derivedId, IdPrefix, newId } from '../domain/ids';
import type { Principal } from '../domain/principal';
import type { Logger } from '../observability/logger';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { smsBatchWorkflow } from '../../workflows/sms-batch.workflow';
import type { smsDeliveryWorkflow } from '../../workflows/sms-delivery.workflow';
import { smsBatchWorkflowId, smsDeliveryWorkflowId } from '../../workflows/shared/workflow-ids';
import type { EventsService } from '../webhooks/events.service';
import { assertOutboundUrl } from '../platform/outbound-http';
import type { PhoneNumbersService } from '../numbers/phone-numbers.service';

/** Body limits: at most 1600 characters and 10 segments (1530 GSM-7 septets or 670 UCS-2 code units). */
export const MAX_BODY_CHARS = 1600;
export const MAX_SEGMENTS = 10;
/** How far ahead send_at may be. */
export const MAX_SCHEDULE_DAYS = 35;
/** Immediate messages share a workflow start: at most this many per batch, waiting at most this long. */
export const SEND_BATCH = { maxSize: 64, maxWaitMs: 5 };

/** Scheduled and promotional messages have a delivery workflow of their own (timers, cancel). */
const hasOwnWorkflow = (m: { send_at: Date | null; type: MessageType }) => m.send_at !== null || m.type === 'promotional';

/** What the messaging service needs from the carrier layer: the router (submit) and its lifecycle. */
export interface SmsCarriers {
  submit(request: SubmitSmsRequest): Promise<SubmitSmsResult>;
  start?(listener: CarrierListener): Promise<void>;
  stop?(): Promise<void>;
}

/** Called for an inbound message to a number with a live agent attached (conversations issue). */
export type InboundAgentHook = (input: { accountId: string; phoneNumberId: string; agentId: string; message: MessageObject }) => Promise<void>;

export interface MessageObject {
  id: string;
  object: 'message';
  channel: string;
  direction: 'outbound' | 'inbound';
  type: MessageType;
  to: string;
  from: string;
  body: string;
  status: MessageStatus;
  segments: number;
  encoding: string;
  price: string | null;
  price_currency: string | null;
  error_code: string | null;
  error_message: string | null;
  reference: string | null;
  status_callback: string | null;
  send_at: string | null;
  carrier: string | null;
  carrier_message_id: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  delivered_at: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toMessageObject = (m: MessageRow): MessageObject => ({
  id: m.id,
  object: 'message',
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
  status_callback: m.status_callback,
  send_at: iso(m.send_at),
  carrier: m.carrier,
  carrier_message_id: m.carrier_message_ids?.[0] ?? null,
  created_at: m.created_at.toISOString(),
  updated_at: m.updated_at.toISOString(),
  sent_at: iso(m.sent_at),
  delivered_at: iso(m.delivered_at),
});

export interface CreateMessageInput {
  principal: Principal;
  to: string;
  from: string;
  body: string;
  channel?: 'sms';
  type?: MessageType;
  status_callback?: string;
  reference?: string;
  send_at?: string;
}

export interface SendMessageResult {
  status: MessageStatus;
  /** Wait for delivery receipts (false when final already, or the carrier sends none). */
  awaitReceipt: boolean;
}

const FINAL: MessageStatus[] = ['delivered', 'undelivered', 'failed', 'canceled', 'received'];
const NEGATIVE_RECEIPTS = ['undelivered', 'failed', 'expired', 'rejected'];

/** error_code of an undelivered message from the receipt status (docs/sms-error-codes.md). */
const receiptErrorCode = (status: string) =>
  status === 'expired' ? 'message_expired' : status === 'rejected' ? 'carrier_rejected' : 'undeliverable';

/**
 * Outbound and inbound SMS: the API's use cases, the delivery workflow's steps, and the listener the
 * carriers hand receipts and inbound messages to. Postgres holds every status; statuses only move
 * forward (see ALLOWED_FROM in message.repo.ts), so a late or duplicate receipt changes nothing.
 */
export class MessagesService implements CarrierListener {
  private readonly repo = new MessageRepo();
  private carriers?: SmsCarriers;
  private agentHook?: InboundAgentHook;
  private readonly batcher: SendBatcher;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      workflows: WorkflowGateway;
      events: EventsService;
      phoneNumbers: PhoneNumbersService;
      config: Config;
      log: Logger;
      carriers?: SmsCarriers;
    },
  ) {
    this.carriers = deps.carriers;
    this.batcher = new SendBatcher(async (messageIds) => {
      await deps.workflows.start<typeof smsBatchWorkflow>('smsBatchWorkflow', {
        workflowId: smsBatchWorkflowId(messageIds[0]!),
        args: [{ messageIds }],
        memo: { messageIds: messageIds.slice(0, 10), messages: messageIds.length },
      });
    }, SEND_BATCH);
  }

  /** Starts the carriers (worker process only) with this service as their listener. */
  async startCarriers(): Promise<void> {
    await this.carriers?.start?.(this);
  }

  async stopCarriers(): Promise<void> {
    await this.carriers?.stop?.();
  }

  /** The hook for inbound messages to numbers with a live agent (set by the conversations area). */
  setInboundAgentHook(hook: InboundAgentHook | undefined) {
    this.agentHook = hook;
  }

  // ---------------------------------------------------------------- API

  async createMessage(input: CreateMessageInput): Promise<MessageObject> {
    const { principal } = input;
    const to = parseRecipient(input.to);
    if (!to.ok) throw new AppError('parameter_invalid', `Invalid to: ${to.reason}`, { param: 'to' });
    await this.assertSender(principal.accountId, input.from);
    const segmented = this.assertBody(input.body);
    if (input.status_callback) {
      assertOutboundUrl(input.status_callback, { allowPrivate: this.deps.config.network.allowPrivate, requireHttps: principal.mode === 'live' }, 'status_callback');
    }
    let sendAt: Date | null = null;
    if (input.send_at) {
      sendAt = new Date(input.send_at);
      const now = Date.now();
      if (sendAt.getTime() < now) throw new AppError('parameter_invalid', 'Invalid send_at: it is in the past', { param: 'send_at' });
      if (sendAt.getTime() > now + MAX_SCHEDULE_DAYS * 86_400_000) {
        throw new AppError('parameter_invalid', `Invalid send_at: at most ${MAX_SCHEDULE_DAYS} days ahead`, { param: 'send_at' });
      }
    }
    return this.enqueueMessage({
      accountId: principal.accountId,
      to: to.number,
      country: to.country,
      from: input.from,
      body: input.body,
      segments: segmented.segments,
      encoding: segmented.encoding,
      type: input.type ?? 'transactional',
      origin: 'api',
      statusCallback: input.status_callback ?? null,
      reference: input.reference ?? null,
      sendAt,
    });
  }

  /** A message the service sends itself (keyword replies, verification codes): no sender check. */
  async sendInternalMessage(input: { accountId: string; to: string; from: string; body: string; origin: MessageOrigin; id?: string }) {
    const segmented = segmentSms(input.body);
    return this.enqueueMessage({
      id: input.id,
      accountId: input.accountId,
      to: input.to,
      country: countryOf(input.to),
      from: input.from,
      body: input.body,
      segments: segmented.segments,
      encoding: segmented.encoding,
      type: 'transactional',
      origin: input.origin,
      statusCallback: null,
      reference: null,
      sendAt: null,
    });
  }

  private async enqueueMessage(m: {
    id?: string;
    accountId: string;
    to: string;
    country: string | null;
    from: string;
    body: string;
    segments: number;
    encoding: string;
    type: MessageType;
    origin: MessageOrigin;
    statusCallback: string | null;
    reference: string | null;
    sendAt: Date | null;
  }): Promise<MessageObject> {
    const { db, workflows } = this.deps;
    const id = m.id ?? newId(IdPrefix.message);
    const inserted = await this.repo.insertMessage(db, {
      id,
      account_id: m.accountId,
      direction: 'outbound',
      type: m.type,
      origin: m.origin,
      to: m.to,
      from: m.from,
      body: m.body,
      status: 'queued',
      segments: m.segments,
      encoding: m.encoding,
      country: m.country,
      price: null,
      price_currency: null,
      error_code: null,
      error_message: null,
      reference: m.reference,
      status_callback: m.statusCallback,
      send_at: m.sendAt,
      held_until: null,
      carrier: null,
      carrier_message_ids: null,
    });
    const row = inserted ?? (await this.repo.getMessage(db, id));
    try {
      // A repeated id (a keyword reply redone after a crash) was dispatched when it was first stored.
      if (!hasOwnWorkflow({ send_at: m.sendAt, type: m.type })) {
        if (inserted) await this.batcher.add(id);
      }
      else await workflows.start<typeof smsDeliveryWorkflow>('smsDeliveryWorkflow', {
        workflowId: smsDeliveryWorkflowId(id),
        args: [
          {
            messageId: id,
            sendAt: m.sendAt?.toISOString() ?? null,
            promotional: m.type === 'promotional',
            receiptTimeoutSeconds: this.deps.config.messaging.receiptTimeoutSeconds,
          },
        ],
        memo: { accountId: m.accountId, messageId: id },
      });
    } catch (err) {
      // Nothing stays behind for a request that failed: the caller's retry creates the message anew.
      if (inserted) await db.deleteFrom('messages').where('id', '=', id).where('status', '=', 'queued').execute();
      throw err;
    }
    return toMessageObject(row!);
  }

  private async assertSender(accountId: string, from: string) {
    const kind = classifySender(from);
    if (!kind) {
      throw new AppError('parameter_invalid', 'Invalid from: expected a sender ID (1-11 letters, digits or spaces, at least one letter), a short code (3-8 digits) or an E.164 number', { param: 'from' });
    }
    if (kind === 'number') {
      const number = await this.deps.phoneNumbers.findAccountNumber({ accountId, number: from });
      if (!number) throw new AppError('parameter_invalid', `Invalid from: ${from} is not a phone number of this account`, { param: 'from' });
    }
  }

  private assertBody(body: string) {
    if (body.length === 0) throw new AppError('parameter_invalid', 'Invalid body: it is empty', { param: 'body' });
    if (body.length > MAX_BODY_CHARS) {
      throw new AppError('parameter_invalid', `Invalid body: at most ${MAX_BODY_CHARS} characters`, { param: 'body' });
    }
    const segmented = segmentSms(body);
    if (segmented.segments > MAX_SEGMENTS) {
      throw new AppError('parameter_invalid', `Invalid body: ${segmented.segments} segments, at most ${MAX_SEGMENTS}`, { param: 'body' });
    }
    return segmented;
  }

  async getMessage(input: { accountId: string; messageId: string }): Promise<MessageObject> {
    const row = await this.repo.getMessageById(this.deps.db, input.accountId, input.messageId);
    if (!row) throw notFound('message', input.messageId);
    return toMessageObject(row);
  }

  async listMessages(input: { accountId: string; page: PageParams; to?: string; from?: string; status?: MessageStatus; direction?: 'inbound' | 'outbound' }) {
    const { accountId, page, ...filter } = input;
    const result = await this.repo.listMessages(this.deps.db, accountId, page, filter);
    return { object: 'list' as const, data: result.data.map(toMessageObject), has_more: result.has_more };
  }

  /** Cancels a message still `queued` (waiting for send_at or quiet hours); 409 once it is on its way. */
  async cancelMessage(input: { accountId: string; messageId: string }): Promise<MessageObject> {
    const current = await this.repo.getMessageById(this.deps.db, input.accountId, input.messageId);
    if (!current) throw notFound('message', input.messageId);
    const row = await this.repo.transitionMessage(this.deps.db, current.id, 'canceled', { held_until: null });
    if (!row) {
      throw new AppError('message_not_cancelable', `Message ${current.id} is ${current.status}; only queued messages can be canceled`, { param: 'id' });
    }
    await this.emitUpdated(row);
    await this.deps.workflows.signalIfRunning(smsDeliveryWorkflowId(row.id), 'cancelMessage');
    return toMessageObject(row);
  }

  // ---------------------------------------------------------------- delivery workflow steps

  /**
   * Before a promotional message goes out: when it is quiet time at the recipient (`at` is the
   * workflow's clock), the time to hold it until. Null when it may go now or is no longer queued.
   */
  async planMessageSend(input: { messageId: string; at: number }): Promise<{ holdUntil: number | null }> {
    const m = await this.repo.getMessage(this.deps.db, input.messageId);
    if (!m) throw notFound('message', input.messageId);
    if (m.status !== 'queued' || m.type !== 'promotional') return { holdUntil: null };
    const until = quietHoursHoldUntil(new Date(input.at), m.country);
    await this.repo.setHeldUntil(this.deps.db, m.id, until);
    return { holdUntil: until?.getTime() ?? null };
  }

  /**
   * Consent check, `sending`, submit through the carrier router, `sent` (charged), then any receipts
   * that arrived before the submit was recorded. A retryable carrier failure is thrown so Temporal
   * retries with backoff; a permanent one ends the message `failed` with the carrier's error code.
   */
  async sendMessage(input: { messageId: string }): Promise<SendMessageResult> {
    const { db } = this.deps;
    let m = await this.repo.getMessage(db, input.messageId);
    if (!m) throw notFound('message', input.messageId);
    if (FINAL.includes(m.status)) return { status: m.status, awaitReceipt: false };
    if (m.status === 'sent') return this.reconcileAfterSubmit(m.id, true);

    if (m.status === 'queued') {
      const claimed = await this.repo.claimForSending(db, m.id);
      if (!claimed) return this.sendMessage(input); // canceled meanwhile: re-read
      await this.emitUpdated(claimed);
      if (claimed.status === 'failed') return { status: 'failed', awaitReceipt: false };
      m = claimed;
    }

    if (!this.carriers) throw new CarrierError('No SMS carrier is configured', 'none', 'no_route', false);
    let result: SubmitSmsResult;
    try {
      result = await this.carriers.submit({ messageId: m.id, accountId: m.account_id, to: m.to, from: m.from, body: m.body, requestReceipt: true });
    } catch (err) {
      if (err instanceof CarrierError && !err.retryable) {
        await this.fail(m.id, err.code, err.message);
        return { status: 'failed', awaitReceipt: false };
      }
      throw err;
    }
    const { config } = this.deps;
    const sent = await this.repo.recordSubmit(db, m.id, {
      carrier: result.carrier,
      carrier_message_ids: result.carrierMessageIds,
      price: priceMessage({ prices: config.messaging.prices, country: m.country, segments: m.segments }),
      price_currency: config.messaging.priceCurrency,
      sent_at: new Date(),
    });
    if (sent) await this.emitUpdated(sent);
    return this.reconcileAfterSubmit(m.id, !result.noReceipts, sent);
  }

  /** Receipts that arrived before the submit was recorded are folded in now. */
  private async reconcileAfterSubmit(messageId: string, receipts: boolean, row?: MessageRow): Promise<SendMessageResult> {
    const applied = await this.applyReceipts({ messageId }, row);
    return { status: applied.status, awaitReceipt: receipts && !applied.final };
  }

  /** Ends a message `failed` before it reached a carrier (nothing charged). */
  async failMessage(input: { messageId: string; errorCode: string; errorMessage: string }) {
    await this.fail(input.messageId, input.errorCode, input.errorMessage);
  }

  private async fail(messageId: string, errorCode: string, errorMessage: string) {
    const row = await this.repo.transitionMessage(this.deps.db, messageId, 'failed', { error_code: errorCode, error_message: errorMessage, held_until: null });
    if (row) await this.emitUpdated(row);
  }

  /**
   * Folds the stored receipts of a message's parts into its status: a negative receipt makes it
   * `undelivered`, else a delivered one makes it `delivered`. Idempotent; never moves a status back.
   */
  async applyReceipts(input: { messageId: string }, known?: MessageRow): Promise<{ status: MessageStatus; final: boolean }> {
    const { db } = this.deps;
    const m = known ?? (await this.repo.getMessage(db, input.messageId));
    if (!m) throw notFound('message', input.messageId);
    if (m.status !== 'sent' && m.status !== 'sending') return { status: m.status, final: FINAL.includes(m.status) };
    const receipts = await this.repo.listReceiptsOfMessage(db, m.id);
    if (receipts.length === 0) return { status: m.status, final: false };
    const negative = receipts.find((r) => NEGATIVE_RECEIPTS.includes(r.status));
    let row: MessageRow | undefined;
    if (negative) {
      row = await this.repo.transitionMessage(db, m.id, 'undelivered', {
        error_code: receiptErrorCode(negative.status),
        error_message: describeReceipt(negative),
      });
    } else {
      // Some carriers confirm only the first part of a concatenated message: one delivered part is
      // the handset's confirmation (a later negative receipt for another part cannot move it back).
      const delivered = receipts.find((r) => r.status === 'delivered');
      if (delivered) row = await this.repo.transitionMessage(db, m.id, 'delivered', { delivered_at: delivered.received_at });
    }
    if (row) {
      await this.emitUpdated(row);
      return { status: row.status, final: true };
    }
    const now = await this.repo.getMessage(db, m.id);
    return { status: now!.status, final: FINAL.includes(now!.status) };
  }

  /** message.updated to the status_callback, or the account's endpoints; one event per status. */
  private async emitUpdated(m: MessageRow) {
    await this.deps.events.emit({
      accountId: m.account_id,
      type: 'message.updated',
      data: toMessageObject(m) as unknown as Record<string, unknown>,
      eventId: derivedId(IdPrefix.event, m.id, 'message.updated', m.status),
      callbackUrl: m.status_callback ?? undefined,
    });
  }

  // ---------------------------------------------------------------- carrier listener

  /**
   * A delivery receipt: stored first (keyed by carrier and carrier message id), then folded into its
   * message by the delivery workflow. A receipt for a message whose submit is not recorded yet waits
   * in the table; recording the submit picks it up.
   */
  async onReceipt(receipt: DeliveryReceipt): Promise<void> {
    const { db, workflows } = this.deps;
    const m = await this.repo.storeReceipt(db, {
      carrier: receipt.carrier,
      carrier_message_id: receipt.carrierMessageId,
      status: receipt.status,
      carrier_error_code: receipt.carrierErrorCode ?? null,
      received_at: receipt.at,
    });
    if (!m) return;
    // A message with a workflow of its own is waiting for this signal; a batched one (or one whose
    // workflow stopped waiting at the receipt timeout) has its receipts folded in here. Either way a
    // late receipt still moves `sent` forward, never back.
    const signaled = hasOwnWorkflow(m) && (await workflows.signalIfRunning(smsDeliveryWorkflowId(m.id), 'deliveryReceipt'));
    if (!signaled) await this.applyReceipts({ messageId: m.id }, m);
  }

  /**
   * An inbound SMS: stored as an inbound message of the account owning the number (or that last wrote
   * to this sender from this sender ID / short code), consent keywords applied, message.received
   * emitted. Idempotent per carrier message id (a redelivered deliver_sm changes nothing).
   */
  async onInbound(sms: InboundSms): Promise<void> {
    const { db, log } = this.deps;
    const number = await this.deps.phoneNumbers.findNumber({ number: sms.to });
    const accountId = number?.account_id ?? (await this.repo.findAccountOfConversation(db, sms.to, sms.from));
    if (!accountId) {
      log.warn({ carrier: sms.carrier, to: sms.to }, 'Inbound SMS to an unknown number dropped');
      return;
    }
    const id = sms.carrierMessageId
      ? derivedId(IdPrefix.message, 'inbound', sms.carrier, sms.carrierMessageId)
      : newId(IdPrefix.message);
    const segmented = segmentSms(sms.body);
    await this.repo.insertMessage(db, {
      id,
      account_id: accountId,
      direction: 'inbound',
      type: 'transactional',
      origin: 'api',
      to: sms.to,
      from: sms.from,
      body: sms.body,
      status: 'received',
      segments: segmented.segments,
      encoding: segmented.encoding,
      country: countryOf(sms.from),
      price: null,
      price_currency: null,
      error_code: null,
      error_message: null,
      reference: null,
      status_callback: null,
      send_at: null,
      held_until: null,
      carrier: sms.carrier,
      carrier_message_ids: sms.carrierMessageId ? JSON.stringify([sms.carrierMessageId]) : null,
      created_at: sms.receivedAt,
    });
    const row = (await this.repo.getMessage(db, id))!;
    const message = toMessageObject(row);

    const keyword = classifyKeyword(sms.body);
    if (keyword) {
      const sender = sms.to;
      const recipient = sms.from;
      let reply: string;
      if (keyword.action === 'opt_out' || keyword.action === 'opt_out_all') {
        const scope = keyword.action === 'opt_out_all' ? '*' : sender;
        await this.repo.setConsent(db, { account_id: accountId, sender: scope, recipient, opted_out: true, keyword: keyword.keyword });
        reply = OPT_OUT_REPLY;
      } else if (keyword.action === 'opt_in') {
        await this.repo.clearConsent(db, accountId, sender, recipient);
        await this.repo.clearConsent(db, accountId, '*', recipient);
        reply = OPT_IN_REPLY;
      } else {
        reply = number?.help_text ?? this.deps.config.messaging.helpText;
      }
      await this.sendInternalMessage({
        id: derivedId(IdPrefix.message, id, 'auto_reply'),
        accountId,
        to: recipient,
        from: sender,
        body: reply,
        origin: 'auto_reply',
      });
    }

    await this.deps.events.emit({
      accountId,
      type: 'message.received',
      data: message as unknown as Record<string, unknown>,
      eventId: derivedId(IdPrefix.event, id, 'message.received'),
    });

    if (!keyword && number?.agent_id && this.agentHook) {
      await this.agentHook({ accountId, phoneNumberId: number.id, agentId: number.agent_id, message });
    }
  }
}

function describeReceipt(r: ReceiptRow) {
  return `Carrier ${r.carrier} reported ${r.status}${r.carrier_error_code ? ` (error ${r.carrier_error_code})` : ''}`;
}
