import type { Kysely, Transaction } from 'kysely';
import { assertWithinDailyVolume } from '../accounts/account-quotas';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import type { PageParams } from '../db/pagination';
import type { BatchRejection, MessageType } from '../db/tables/sms';
import type { ListObject } from '../domain/api-schema';
import { isE164 } from '../domain/channels';
import { AppError, isAppError, notFound, type ErrorCode } from '../domain/errors';
import { derivedId, IdPrefix, newId } from '../domain/ids';
import { parseRecipient } from '../domain/phone-addresses';
import { scopeOf, type Principal, type Scope } from '../domain/principal';
import type { EventsService } from '../webhooks/events.service';
import { parseTemplate, renderTemplate, type BodyTemplate } from './body-template';
import { emitMessagesUpdated } from './message-events';
import { emptyCounts, MessageBatchRepo, type BatchMessageRow, type MessageBatchRow } from './message-batch.repo';
import { toMessageBatchObject, type MessageBatchObject } from './message-batch.schemas';
import { toMessageObject, type MessageObject } from './message.schemas';
import { hasOwnWorkflow, MAX_BODY_CHARS, type MessagesService } from './messages.service';

/** Recipients one batch may hold. */
export const MAX_BATCH_RECIPIENTS = 10_000;
/** Recipients checked between two turns of the event loop (about 70 ms of work at most). */
const CHECK_SLICE = 1000;
/** Invalid recipients named in the error message of a refused batch (all of them are counted). */
const ERRORS_NAMED = 5;

export interface BatchRecipient {
  to: string;
  variables?: Record<string, string>;
  reference?: string;
}

export interface CreateBatchInput {
  principal: Principal;
  from: string;
  body: string;
  recipients: BatchRecipient[];
  type?: MessageType;
  status_callback?: string;
  send_at?: string;
  skip_invalid?: boolean;
  /** Stores the API response in the transaction that queues the batch (the request's Idempotency-Key). */
  recordResponse?: (tx: Transaction<DB>, batch: MessageBatchObject) => Promise<void>;
}

/**
 * Message batches: one request, up to MAX_BATCH_RECIPIENTS messages from one sender with one body template.
 * The whole batch is validated first (each bad recipient by index and reason); then the batch and all its
 * messages (each with its SMS outbox row) commit in one transaction, with the Idempotency-Key's response.
 * From there each message is an ordinary SMS: the dispatcher puts it in a batch workflow (or its own,
 * scheduled or promotional), consent, quiet hours, pricing and failover apply per message. A batch
 * completes (message_batch.completed) once every message is final (completeFinished, the worker's sweep).
 */
export class MessageBatchesService {
  private readonly repo = new MessageBatchRepo();

  constructor(private readonly deps: { db: Kysely<DB>; events: EventsService; messages: MessagesService; config: Config }) {}

  async createBatch(input: CreateBatchInput): Promise<MessageBatchObject> {
    const { principal } = input;
    const { messages } = this.deps;
    const scope = scopeOf(principal);
    const { sendAt } = await messages.checkSendOptions(principal, input);
    const type = input.type ?? 'transactional';
    const rows: BatchMessageRow[] = [];
    const rejected: BatchRejection[] = [];
    const template = parseTemplate(input.body);
    for (const [index, r] of input.recipients.entries()) {
      // Checking 10,000 recipients (numbering plans, segmenting) takes a while: let other requests in.
      if (index > 0 && index % CHECK_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      const checked = this.checkRecipient(template, r, index);
      if ('param' in checked) rejected.push(checked);
      else rows.push(checked);
    }
    if (rejected.length > 0 && !input.skip_invalid) throw refusal(rejected, 'nothing was queued; fix them, or pass skip_invalid: true to queue the others');
    if (rows.length === 0) throw refusal(rejected, 'no recipient is valid, nothing was queued');

    const batch = {
      id: newId(IdPrefix.messageBatch),
      ...{ account_id: scope.accountId, livemode: scope.livemode },
      from: input.from,
      type,
      body: input.body,
      send_at: sendAt,
      status_callback: input.status_callback ?? null,
    };
    const object = await this.deps.db.transaction().execute(async (tx) => {
      if (!scope.livemode) await this.assertTestVolume(tx, scope.accountId, rows.length, batch.status_callback !== null);
      const stored = await this.repo.insertBatch(tx, { ...batch, recipients: rows.length, rejected: JSON.stringify(rejected) });
      await this.repo.insertQueuedMessages(tx, batch, rows, hasOwnWorkflow({ send_at: sendAt, type }));
      const created = toMessageBatchObject(stored, { ...emptyCounts(), queued: rows.length });
      if (input.recordResponse) await input.recordResponse(tx, created);
      return created;
    });
    messages.announceQueued();
    return object;
  }

  /**
   * Test mode costs nothing and needs no proof of anything, so its volume is capped per account and rolling
   * day: batch messages, and (tighter) those with a status_callback, each making about three signed POSTs
   * to a URL of the caller's choosing (issue 28 #13: a 10,000-recipient test batch made ~30,000).
   */
  private async assertTestVolume(tx: Transaction<DB>, accountId: string, adding: number, withCallback: boolean) {
    const { limits } = this.deps.config;
    await assertWithinDailyVolume(tx, { accountId, kind: 'test_batch_messages', limit: limits.testBatchMessagesPerDay, adding, param: 'recipients' });
    if (withCallback) {
      await assertWithinDailyVolume(tx, { accountId, kind: 'test_batch_callback_messages', limit: limits.testBatchCallbackMessagesPerDay, adding, param: 'status_callback' });
    }
  }

  /** One recipient checked and rendered: its message row, or why it is refused (param by index). */
  private checkRecipient(template: BodyTemplate, r: BatchRecipient, index: number): BatchMessageRow | BatchRejection {
    // The rendered length is added up before any body is built (and before the costlier number check):
    // an oversized body is refused unbuilt.
    const rendered = renderTemplate(template, r.variables ?? {}, { maxLength: MAX_BODY_CHARS });
    if (!rendered.ok && 'length' in rendered) {
      const param = `recipients.${index}.variables`;
      return { index, param, code: 'parameter_invalid', message: `Invalid ${param}: the body with this recipient's variables is ${rendered.length} characters, at most ${MAX_BODY_CHARS}` };
    }
    const to = parseRecipient(r.to);
    if (!to.ok) {
      const param = `recipients.${index}.to`;
      return { index, param, code: isE164(r.to) ? 'parameter_unprocessable' : 'parameter_invalid', message: `Invalid ${param}: ${to.reason}` };
    }
    if (!rendered.ok) {
      const param = `recipients.${index}.variables`;
      const names = rendered.missing.map((n) => `{{${n}}}`).join(', ');
      return { index, param, code: 'parameter_unprocessable', message: `Invalid ${param}: no value for ${names} in the body` };
    }
    try {
      const segmented = this.deps.messages.assertBody(rendered.body, `recipients.${index}.variables`);
      return { id: newId(IdPrefix.message), to: to.number, country: to.country, body: rendered.body, segments: segmented.segments, encoding: segmented.encoding, reference: r.reference ?? null };
    } catch (err) {
      if (!isAppError(err)) throw err;
      return { index, param: err.param!, code: err.code, message: `${err.message} (the body with this recipient's variables)` };
    }
  }

  async getBatch(input: Scope & { batchId: string }): Promise<MessageBatchObject> {
    const batch = await this.findBatch(input);
    return this.present(batch);
  }

  async listBatchMessages(input: Scope & { batchId: string; page: PageParams }): Promise<ListObject<MessageObject>> {
    await this.findBatch(input);
    const page = await this.repo.listMessages(this.deps.db, scopeOf(input), input.batchId, input.page);
    return { object: 'list' as const, data: page.data.map(toMessageObject), has_more: page.has_more };
  }

  /**
   * Cancels every message of the batch not yet handed to a carrier (`queued`: waiting in the outbox, for
   * send_at, quiet hours or its round), each with its message.updated; the others go on. A scheduled
   * message's workflow finds it canceled when it wakes.
   */
  async cancelBatch(input: Scope & { batchId: string }): Promise<MessageBatchObject> {
    const batch = await this.findBatch(input);
    const { events } = this.deps;
    await events.transaction(async (tx) => {
      const canceled = await this.repo.cancelQueued(tx, batch.id);
      await emitMessagesUpdated(events, canceled, tx);
    });
    return this.present((await this.repo.getBatch(this.deps.db, scopeOf(input), batch.id))!);
  }

  /**
   * Completes the batches whose every message is final (a `sent` one counts once its receipt can no longer
   * come: SMS_RECEIPT_TIMEOUT_SECONDS), each with message_batch.completed carrying its final counts.
   * Called by the SMS dispatcher's sweep in the worker.
   */
  async completeFinishedBatches(): Promise<number> {
    const { events, config } = this.deps;
    return events.transaction(async (tx) => {
      const done = await this.repo.completeFinished(tx, config.messaging.receiptTimeoutSeconds);
      if (done.length === 0) return 0;
      const counts = await this.repo.countByStatus(tx, done.map((b) => b.id));
      await events.emitMany(
        done.map((b) => ({
          accountId: b.account_id,
          livemode: b.livemode,
          type: 'message_batch.completed',
          data: toMessageBatchObject(b, counts.get(b.id)!),
          eventId: derivedId(IdPrefix.event, b.id, 'message_batch.completed'),
          callbackUrl: b.status_callback ?? undefined,
        })),
        { tx },
      );
      return done.length;
    });
  }

  private async findBatch(input: Scope & { batchId: string }): Promise<MessageBatchRow> {
    const batch = await this.repo.getBatch(this.deps.db, scopeOf(input), input.batchId);
    if (!batch) throw notFound('message batch', input.batchId);
    return batch;
  }

  private async present(batch: MessageBatchRow): Promise<MessageBatchObject> {
    const counts = await this.repo.countByStatus(this.deps.db, [batch.id]);
    return toMessageBatchObject(batch, counts.get(batch.id)!);
  }
}

/** The error of a refused batch: the first bad recipient's code and param, the first few named, all counted. */
function refusal(rejected: BatchRejection[], outcome: string): AppError {
  const first = rejected[0]!;
  const named = rejected.slice(0, ERRORS_NAMED).map((r) => r.message).join('; ');
  const more = rejected.length > ERRORS_NAMED ? `; and ${rejected.length - ERRORS_NAMED} more` : '';
  return new AppError(first.code as ErrorCode, `${rejected.length} invalid recipient${rejected.length === 1 ? '' : 's'} (${outcome}): ${named}${more}`, { param: first.param });
}
