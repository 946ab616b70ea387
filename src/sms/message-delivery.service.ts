import type { Kysely } from 'kysely';
import { deriveKey, openText } from '../domain/secret-box';
import { CarrierError, type SmsCarriers } from './carrier';
import { priceMessage } from './pricing';
import { quietHoursHoldUntil } from './quiet-hours';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import type { MessageStatus } from '../db/tables/sms';
import { notFound } from '../domain/errors';
import type { EventsService } from '../webhooks/events.service';
import { emitMessageUpdated } from './message-events';
import { MessageRepo, type MessageRow, type ReceiptRow } from './message.repo';
import { MessageSubmitter, type SubmitDecision } from './message-submitter';
import { receiptMove, type ReceiptFolder } from './receipt-fold';

export interface SendMessageResult {
  status: MessageStatus;
  /** Wait for delivery receipts (false when final already, or the carrier sends none). */
  awaitReceipt: boolean;
  /** The submit may have gone out unanswered: call again with `afterUncertainWait` after this long. */
  uncertainWaitSeconds?: number;
}

const FINAL: MessageStatus[] = ['delivered', 'undelivered', 'failed', 'canceled', 'received'];

/**
 * The delivery workflows' steps (called by activities): quiet-hours planning, consent check + submit
 * through the carrier router, failing a message, and folding delivery receipts into its status. Postgres
 * holds every status; statuses only move forward (ALLOWED_FROM in message.repo.ts), so a late or duplicate
 * receipt changes nothing.
 */
export class MessageDeliveryService {
  private readonly repo = new MessageRepo();
  private readonly submitter: MessageSubmitter;
  /** The key of sealed bodies (MessagesService seals them), derived once. */
  private readonly bodySealKey: Buffer;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      events: EventsService;
      config: Config;
      carriers?: SmsCarriers;
      /** Folds receipts into their messages (shared with the carrier listener and the batch rounds). */
      receiptFolder: ReceiptFolder;
    },
  ) {
    this.submitter = new MessageSubmitter({ db: deps.db, carriers: deps.carriers });
    this.bodySealKey = deriveKey(deps.config.secrets.server, 'message-body-seal');
  }

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
   * Consent check, `sending`, submit through the carrier router (journaled, see MessageSubmitter), `sent`
   * (charged), then any receipts that arrived before the submit was recorded. A retryable carrier
   * failure is thrown so Temporal retries with backoff; a permanent one ends the message `failed` with
   * the carrier's error code; a submit that may have gone out unanswered returns `uncertainWaitSeconds`:
   * the workflow waits that long (a receipt may settle it meanwhile), then calls again with
   * `afterUncertainWait`.
   */
  async sendMessage(input: { messageId: string; afterUncertainWait?: boolean }): Promise<SendMessageResult> {
    const { db } = this.deps;
    // The common case first: a message still `queued` is claimed at once (no read before it).
    let m = await this.claimQueued(input.messageId);
    // Freshly moved from `queued`: no submit can have been journaled for it (only `sending` ones are).
    const justClaimed = m !== undefined;
    if (!m) {
      m = await this.repo.getMessage(db, input.messageId);
      if (!m) throw notFound('message', input.messageId);
      if (FINAL.includes(m.status)) return { status: m.status, awaitReceipt: false };
      if (m.status === 'sent') return this.reconcileAfterSubmit(m.id, true);
      if (m.status === 'queued') return this.sendMessage(input); // queued again after the read: claim it
    }
    if (m.status === 'failed') return { status: 'failed', awaitReceipt: false };

    let decision: SubmitDecision;
    try {
      const toSubmit = { ...m, body: this.carrierBody(m) };
      decision = justClaimed ? await this.submitter.submitFirst(toSubmit) : await this.submitter.submit(toSubmit, { afterUncertainWait: input.afterUncertainWait });
    } catch (err) {
      if (err instanceof CarrierError && !err.retryable) {
        await this.fail(m.id, err.code, err.message);
        return { status: 'failed', awaitReceipt: false };
      }
      throw err;
    }
    if (decision.kind === 'accepted_before') return this.reconcileAfterSubmit(m.id, true);
    if (decision.kind === 'adopt') {
      await this.recordAccepted(m, decision.carrier, [decision.carrierMessageId], 0);
      return this.reconcileAfterSubmit(m.id, true);
    }
    if (decision.kind === 'wait') {
      return { status: 'sending', awaitReceipt: false, uncertainWaitSeconds: this.deps.config.messaging.uncertainSubmitWaitSeconds };
    }
    const { result } = decision;
    const sent = await this.recordAccepted(m, result.carrier, result.carrierMessageIds, decision.attempt);
    if (m.body_sealed) await this.repo.clearSealedBody(db, m.id); // the carrier has it: nothing to keep
    return this.reconcileAfterSubmit(m.id, !result.noReceipts, sent);
  }

  /**
   * The text a carrier gets for a message: a verification code is stored sealed (the row shows it
   * masked) until the carrier has it. Shared with the batch rounds.
   */
  carrierBody(m: Pick<MessageRow, 'body' | 'body_sealed'>): string {
    return m.body_sealed ? openText(this.bodySealKey, m.body_sealed) : m.body;
  }

  /** Consent check + `queued` → `sending` (or `failed` when opted out), with message.updated; undefined when not queued. */
  private async claimQueued(messageId: string): Promise<MessageRow | undefined> {
    const { events } = this.deps;
    return events.transaction(async (tx) => {
      const row = await this.repo.claimForSending(tx, messageId);
      if (row) await emitMessageUpdated(events, row, tx);
      return row;
    });
  }

  /**
   * A receipt whose carrier id matches no recorded part, for a handset with a submit at that carrier
   * that went out unanswered: that submit was accepted after all. Records it `sent` with the receipt's
   * id, so the receipt folds in and the message is never submitted again. Undefined when none matches.
   */
  async adoptUncertainSubmit(receipt: { carrier: string; carrierMessageId: string; handset?: string }): Promise<MessageRow | undefined> {
    if (!receipt.handset) return undefined;
    const open = await this.submitter.findUncertain(receipt.carrier, receipt.handset);
    const m = open && (await this.repo.getMessage(this.deps.db, open.message_id));
    if (!m) return undefined;
    await this.recordAccepted(m, receipt.carrier, [receipt.carrierMessageId], 0);
    return this.repo.getMessage(this.deps.db, m.id);
  }

  /** `sent` with the carrier's part ids and the charge and the journal's attempt accepted (one statement), message.updated: one transaction. */
  private async recordAccepted(m: MessageRow, carrier: string, carrierMessageIds: string[], attempt: number) {
    const { config, events } = this.deps;
    return events.transaction(async (tx) => {
      const row = await this.repo.recordSubmit(tx, m.id, {
        carrier,
        carrier_message_ids: carrierMessageIds,
        price: priceMessage({ prices: config.messaging.prices, country: m.country, segments: m.segments }),
        price_currency: config.messaging.priceCurrency,
        sent_at: new Date(),
      }, { attempt });
      if (row) await emitMessageUpdated(events, row, tx);
      return row;
    });
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
    const { events } = this.deps;
    await events.transaction(async (tx) => {
      const row = await this.repo.transitionMessage(tx, messageId, 'failed', { error_code: errorCode, error_message: errorMessage, held_until: null });
      if (row) await emitMessageUpdated(events, row, tx);
    });
    await this.repo.clearSealedBody(this.deps.db, messageId);
  }

  /**
   * Folds the stored receipts of a message's parts into its status: a negative receipt makes it
   * `undelivered`, else a delivered one makes it `delivered`. Idempotent; never moves a status back.
   */
  async applyReceipts(
    input: { messageId: string },
    known?: MessageRow,
    /**
     * `receipts`: the message's receipts when the caller read them already. `fold only`: the caller (the
     * carrier listener) does not use the answer, so when nothing moved the status is not read again.
     */
    opts: { receipts?: ReceiptRow[]; foldOnly?: boolean } = {},
  ): Promise<{ status: MessageStatus; final: boolean }> {
    const { db } = this.deps;
    const m = known ?? (await this.repo.getMessage(db, input.messageId));
    if (!m) throw notFound('message', input.messageId);
    if (m.status !== 'sent' && m.status !== 'sending') return { status: m.status, final: FINAL.includes(m.status) };
    const receipts = opts.receipts ?? (await this.repo.listReceiptsOfMessage(db, m.id));
    if (receipts.length === 0) return { status: m.status, final: false };
    const move = receiptMove(m, receipts);
    const row = move && (await this.deps.receiptFolder.fold(move));
    if (row) return { status: row.status, final: true };
    if (opts.foldOnly) return { status: m.status, final: false };
    const now = await this.repo.getMessage(db, m.id);
    return { status: now!.status, final: FINAL.includes(now!.status) };
  }

}
