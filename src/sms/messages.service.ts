import type { Kysely, Transaction } from 'kysely';
import { isE164 } from '../domain/channels';
import { countryOf, classifySender, parseRecipient, type SenderKind } from '../domain/phone-addresses';
import { segmentSms } from './segmenter';
import type { Config } from '../config/env';
import { deriveKey, sealText } from '../domain/secret-box';
import type { PageParams } from '../db/pagination';
import type { DB } from '../db/schema';
import type { MessageOrigin, MessageStatus, MessageType } from '../db/tables/sms';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import type { PhoneNumbersService } from '../numbers/phone-numbers.service';
import type { SendersService } from '../numbers/senders.service';
import { assertOutboundUrl } from '../platform/outbound-http';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import type { EventsService } from '../webhooks/events.service';
import { cancelMessageSignal, smsDeliveryWorkflowId } from '../../workflows/shared/sms.contracts';
import { emitMessageUpdated } from './message-events';
import { retryInBackground } from '../db/retry-in-background';
import { MessageRepo } from './message.repo';
import { SmsOutboxRepo } from './sms-outbox.repo';
import type { ListObject } from '../domain/api-schema';
import { toMessageObject, type MessageObject } from './message.schemas';
import { sameScope, scopeOf, type Principal, type Scope } from '../domain/principal';

/** Body limits: at most 1600 characters and 10 segments (1530 GSM-7 septets or 670 UCS-2 code units). */
export const MAX_BODY_CHARS = 1600;
export const MAX_SEGMENTS = 10;
/** How far ahead send_at may be. */
export const MAX_SCHEDULE_DAYS = 35;
/** How long the removal of a failed request's message is tried again while the database is away. */
const UNSENT_REMOVAL_RETRY_MS = 60_000;

/** How many sender owners a process remembers (then it starts over). */
const SENDER_OWNERS_CACHED = 10_000;

/** Scheduled and promotional messages have a delivery workflow of their own (timers, cancel). */
export const hasOwnWorkflow = (m: { send_at: Date | null; type: MessageType }) => m.send_at !== null || m.type === 'promotional';

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
  /** Stores the API response in the transaction that creates the message (the request's Idempotency-Key). */
  recordResponse?: RecordResponse;
}

/** Called inside the transaction that creates the message, with the object the API answers. */
export type RecordResponse = (tx: Transaction<DB>, message: MessageObject) => Promise<void>;

/**
 * The SMS API's use cases: send (now, at send_at, or held for quiet hours), read, list and cancel, and the
 * messages the service sends itself (keyword replies, verification codes). A message is committed `queued`
 * with its SMS outbox row, and the dispatcher in the worker (SmsDispatcher) starts its workflow: immediate
 * messages in shared batch workflows, scheduled and promotional ones in a delivery workflow of their own;
 * the steps those run are in MessageDeliveryService.
 */
export class MessagesService {
  private readonly repo = new MessageRepo();
  private readonly outbox = new SmsOutboxRepo();
  private readonly queuedListeners = new Set<() => void>();
  /** Sender (number, or sender ID lower-cased) → the account and mode it is registered to. */
  private readonly senderOwners = new Map<string, Scope>();

  /** Seals bodies held back from the store (MessageDeliveryService.carrierBody opens them with the same key). */
  private readonly bodySealKey: Buffer;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      workflows: WorkflowGateway;
      events: EventsService;
      phoneNumbers: PhoneNumbersService;
      senders: SendersService;
      config: Config;
    },
  ) {
    this.bodySealKey = deriveKey(deps.config.secrets.server, 'message-body-seal');
  }

  async createMessage(input: CreateMessageInput): Promise<MessageObject> {
    const { principal } = input;
    const to = parseRecipient(input.to);
    if (!to.ok) throw new AppError(isE164(input.to) ? 'parameter_unprocessable' : 'parameter_invalid', `Invalid to: ${to.reason}`, { param: 'to' });
    const { sendAt } = await this.checkSendOptions(principal, input);
    const segmented = this.assertBody(input.body);
    return this.enqueueMessage({
      ...scopeOf(principal),
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
    }, { recordResponse: input.recordResponse });
  }

  /**
   * The options a message shares with a batch: `from` one of the account's senders, the status_callback
   * an allowed URL, send_at not in the past and at most MAX_SCHEDULE_DAYS ahead.
   */
  async checkSendOptions(principal: Principal, input: { from: string; status_callback?: string; send_at?: string }): Promise<{ sendAt: Date | null }> {
    await this.assertSender(scopeOf(principal), input.from);
    if (input.status_callback) {
      assertOutboundUrl(input.status_callback, { allowPrivate: this.deps.config.network.allowPrivate, requireHttps: principal.mode === 'live' }, 'status_callback');
    }
    if (!input.send_at) return { sendAt: null };
    const sendAt = new Date(input.send_at);
    const now = Date.now();
    if (sendAt.getTime() < now) throw new AppError('parameter_unprocessable', 'Invalid send_at: it is in the past', { param: 'send_at' });
    if (sendAt.getTime() > now + MAX_SCHEDULE_DAYS * 86_400_000) {
      throw new AppError('parameter_unprocessable', `Invalid send_at: at most ${MAX_SCHEDULE_DAYS} days ahead`, { param: 'send_at' });
    }
    return { sendAt };
  }

  /** A message the service sends itself (keyword replies, verification codes): no sender check. */
  /**
   * A message the service itself sends (keyword replies, verification codes). With `sealedBody`, the
   * real text is stored encrypted and `body` (a masked copy of the same length) is what rests in clear.
   */
  async sendInternalMessage(input: Scope & {
    to: string;
    from: string;
    body: string;
    sealedBody?: string;
    origin: MessageOrigin;
    id?: string;
    /** The caller's transaction: the message is queued when it commits. */
    within?: Transaction<DB>;
  }) {
    const segmented = segmentSms(input.sealedBody ?? input.body);
    return this.enqueueMessage({
      bodySealed: input.sealedBody === undefined ? null : sealText(this.bodySealKey, input.sealedBody),
      id: input.id,
      ...scopeOf(input),
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
    }, { within: input.within });
  }

  /**
   * A conversation's reply to its customer (an agent's or a human's), under an id derived from the
   * transcript message. Outbound consent for replies is decided here, once: a customer who opted out of
   * `from` (STOP to it, or STOPALL to the account) gets nothing, and no message is created (undefined).
   */
  async sendConversationReply(input: Scope & { id: string; to: string; from: string; body: string }): Promise<MessageObject | undefined> {
    if (await this.repo.isOptedOut(this.deps.db, scopeOf(input), input.from, input.to)) return undefined;
    return this.sendInternalMessage({ ...input, origin: 'conversation' });
  }

  /** Which of `numbers` the handset `from` last wrote to (where a conversation's SMS replies come from). */
  async findLatestInboundTo(input: Scope & { from: string; numbers: string[] }): Promise<string | undefined> {
    return this.repo.findLatestInboundTo(this.deps.db, scopeOf(input), input.from, input.numbers);
  }

  private async enqueueMessage(m: {
    id?: string;
    accountId: string;
    livemode: boolean;
    to: string;
    country: string | null;
    from: string;
    body: string;
    bodySealed?: string | null;
    segments: number;
    encoding: string;
    type: MessageType;
    origin: MessageOrigin;
    statusCallback: string | null;
    reference: string | null;
    sendAt: Date | null;
  }, opts: { recordResponse?: RecordResponse; within?: Transaction<DB> } = {}): Promise<MessageObject> {
    const { recordResponse, within } = opts;
    const db = within ?? this.deps.db;
    const id = m.id ?? newId(IdPrefix.message);
    const row = {
      id,
      account_id: m.accountId,
      livemode: m.livemode,
      direction: 'outbound' as const,
      type: m.type,
      origin: m.origin,
      to: m.to,
      from: m.from,
      body: m.body,
      body_sealed: m.bodySealed ?? null,
      status: 'queued' as const,
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
    };
    const ownWorkflow = hasOwnWorkflow({ send_at: m.sendAt, type: m.type });
    let inserted: MessageObject | undefined;
    try {
      // The message, its outbox row and (with an Idempotency-Key) the response commit together: the
      // dispatcher in the worker starts its workflow from the outbox, and a retry of a request whose answer
      // was lost replays this message instead of creating another.
      const insert = async (tx: Kysely<DB>) => {
        const stored = await this.outbox.insertQueuedMessage(tx, row, ownWorkflow);
        const object = stored && toMessageObject(stored);
        if (object && recordResponse) await recordResponse(tx as Transaction<DB>, object);
        return object;
      };
      inserted = recordResponse && !within ? await db.transaction().execute(insert) : await insert(db);
    } catch (err) {
      // Without a key, a request that failed leaves nothing behind when it can help it: the insert may
      // have committed with its answer lost, and the caller's retry creates the message anew. The removal
      // is tried again once the database is back; a message a workflow took meanwhile (no longer
      // `queued`) stays and goes out.
      if (!recordResponse && !within && !m.id) {
        const remove = () => this.repo.deleteQueuedMessage(db, id);
        await remove().catch(() => retryInBackground(remove, { forMs: UNSENT_REMOVAL_RETRY_MS }));
      }
      throw err;
    }
    if (inserted) {
      // Inside a caller's transaction this is early (the pump finds nothing yet); the commit's NOTIFY and
      // the sweep wake the dispatcher again.
      this.announceQueued();
      return inserted;
    }
    // A repeated id (a keyword reply redone after a crash) was queued when it was first stored.
    return toMessageObject((await this.repo.getMessage(db, id))!);
  }

  /** Tells the dispatcher in this process (if any) that messages were committed to the outbox. */
  onQueued(listener: () => void): () => void {
    this.queuedListeners.add(listener);
    return () => this.queuedListeners.delete(listener);
  }

  /** Wakes the dispatcher in this process (messages were committed to the outbox). */
  announceQueued() {
    for (const listener of this.queuedListeners) listener();
  }

  /**
   * `from` must be one of the account's own senders: a phone number, or an alphanumeric sender ID or
   * short code registered to it. Anything else is 403 `sender_not_registered` (a malformed one is 400).
   */
  async assertSender(scope: Scope, from: string) {
    const kind = classifySender(from);
    if (!kind) {
      throw new AppError('parameter_invalid', 'Invalid from: expected a sender ID (1-11 letters, digits or spaces, at least one letter), a short code (3-8 digits) or an E.164 number', { param: 'from' });
    }
    if (!(await this.ownsSender(scope, from, kind))) {
      const what = kind === 'number' ? 'phone number' : kind === 'short_code' ? 'short code' : 'sender ID';
      throw new AppError('sender_not_registered', `The ${what} ${from} is not registered to this account; ask an operator to register it (npm run cli -- ${kind === 'number' ? 'numbers' : 'senders'} add)`, { param: 'from' });
    }
  }

  /**
   * Whether the account holds the sender. A registered number or sender ID is never removed nor moved to
   * another account, so an owner once found is remembered (the send path then costs one query fewer);
   * a miss is asked again every time (it may be registered meanwhile).
   */
  private async ownsSender(scope: Scope, from: string, kind: SenderKind): Promise<boolean> {
    const key = kind === 'number' ? from : from.toLowerCase();
    const known = this.senderOwners.get(key);
    if (known !== undefined) return sameScope(known, scope);
    let owner: Scope | undefined;
    if (kind === 'number') {
      const number = await this.deps.phoneNumbers.findNumber({ number: from });
      owner = number && { accountId: number.account_id, livemode: number.livemode };
    } else {
      owner = await this.deps.senders.findSenderOwner({ sender: from });
    }
    if (owner === undefined) return false;
    if (this.senderOwners.size >= SENDER_OWNERS_CACHED) this.senderOwners.clear();
    this.senderOwners.set(key, owner);
    return sameScope(owner, scope);
  }

  /** A body's length and segments within the limits (`param` names it in the error); its segmentation. */
  assertBody(body: string, param = 'body') {
    if (body.length === 0) throw new AppError('parameter_invalid', `Invalid ${param}: it is empty`, { param });
    if (body.length > MAX_BODY_CHARS) {
      throw new AppError('parameter_invalid', `Invalid ${param}: at most ${MAX_BODY_CHARS} characters`, { param });
    }
    const segmented = segmentSms(body);
    if (segmented.segments > MAX_SEGMENTS) {
      throw new AppError('parameter_unprocessable', `Invalid ${param}: ${segmented.segments} segments, at most ${MAX_SEGMENTS}`, { param });
    }
    return segmented;
  }

  async getMessage(input: Scope & { messageId: string }): Promise<MessageObject> {
    const row = await this.repo.getMessageById(this.deps.db, scopeOf(input), input.messageId);
    if (!row) throw notFound('message', input.messageId);
    return toMessageObject(row);
  }

  async listMessages(input: Scope & { page: PageParams; to?: string; from?: string; status?: MessageStatus; direction?: 'inbound' | 'outbound' }): Promise<ListObject<MessageObject>> {
    const { accountId, livemode, page, ...filter } = input;
    const result = await this.repo.listMessages(this.deps.db, { accountId, livemode }, page, filter);
    return { object: 'list' as const, data: result.data.map(toMessageObject), has_more: result.has_more };
  }

  /** Cancels a message still `queued` (waiting for send_at or quiet hours); 409 once it is on its way. */
  async cancelMessage(input: Scope & { messageId: string }): Promise<MessageObject> {
    const current = await this.repo.getMessageById(this.deps.db, scopeOf(input), input.messageId);
    if (!current) throw notFound('message', input.messageId);
    const { events } = this.deps;
    const row = await events.transaction(async (tx) => {
      const moved = await this.repo.transitionMessage(tx, current.id, 'canceled', { held_until: null });
      if (moved) await emitMessageUpdated(events, moved, tx);
      return moved;
    });
    if (!row) {
      throw new AppError('message_not_cancelable', `Message ${current.id} is ${current.status}; only queued messages can be canceled`, { param: 'id' });
    }
    await this.deps.workflows.signalIfRunning(smsDeliveryWorkflowId(row.id), cancelMessageSignal);
    return toMessageObject(row);
  }

}
