import type { Kysely } from 'kysely';
import type { Config } from '../config/env';
import type { DB } from '../db/schema';
import { withRetries } from '../db/with-retries';
import { isAppError } from '../domain/errors';
import type { EventsService } from '../webhooks/events.service';
import type { SmsRoundMessage, SmsRoundOutcome, SmsRoundResult } from '../../workflows/shared/sms.contracts';
import { AccountPacing } from './account-pacing';
import { CarrierError, type SmsCarriers } from './carrier';
import { DeadlinePassed, Semaphore } from './carriers/rate-limiter';
import type { MessageDeliveryService } from './message-delivery.service';
import { emitMessagesUpdated } from './message-events';
import { MessageRoundRepo, type AcceptedSubmit } from './message-round.repo';
import { MessageSubmitter, type AttemptStart, type FirstSubmitDecision } from './message-submitter';
import { MessageRepo, type MessageRow } from './message.repo';
import { priceMessage } from './pricing';
import { receiptMove, type ReceiptFolder } from './receipt-fold';

/** Tries of a round's record of accepted submits (and of its receipt fold): 1 s, 2 s, 4 s, 8 s apart (about 15 s in all). */
const RECORD_RETRIES = { tries: 5, firstDelayMs: 1_000 };
/** Rounds running at once in a worker process; a round that waits longer than ROUND_SLOT_WAIT_MS is deferred whole. */
const ROUNDS_AT_ONCE = 6;
const ROUND_SLOT_WAIT_MS = 30_000;
const ROUND_SLOT_DEFER_MS = 1_000;

/**
 * A batch round (smsBatchWorkflow's `sendMessageRound` activity): every due message of a batch in a few
 * statements instead of a dozen each. One transaction claims them all (consent check, `sending` or
 * `failed` opted out, their message.updated events in one insert); their submits go to the router
 * concurrently, each journaled before its carrier gets it (the journal rows of all first tries in one
 * insert); one transaction records every accepted submit (parts, journal `accepted`, `sent` with the
 * charge, events); one query reads the receipts that came before the record, and one transaction folds
 * them. The same guarantees as the one-message path (MessageDeliveryService.sendMessage), which still
 * takes any message the round did not claim itself (a retry after an uncertain wait, a message already
 * past `queued`).
 *
 * While a message's submit is in flight in this process its handset is in `inFlight`: a receipt that
 * arrives before the record needs no adoption (InboundSmsService), the record folds it in.
 */
export class MessageRoundSender {
  private readonly rounds = new MessageRoundRepo();
  private readonly repo = new MessageRepo();
  private readonly submitter: MessageSubmitter;
  private readonly pacing: AccountPacing;
  private readonly inFlight = new Map<string, number>();
  private readonly roundSlots = new Semaphore(ROUNDS_AT_ONCE);
  /** Journal rows of every round running in this process, inserted together per tick. */
  private readonly journal: SharedAttemptJournal;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      events: EventsService;
      config: Config;
      carriers?: SmsCarriers;
      delivery: MessageDeliveryService;
      receiptFolder: ReceiptFolder;
    },
  ) {
    this.submitter = new MessageSubmitter({ db: deps.db, carriers: deps.carriers });
    this.pacing = new AccountPacing(deps.config.messaging.accountThroughput);
    this.journal = new SharedAttemptJournal(deps.db, this.rounds);
  }

  /** Whether a submit to `handset` is in flight in this process (accepted or not, not recorded yet). */
  isInFlight(handset: string): boolean {
    return this.inFlight.has(handset);
  }

  async sendRound(input: { messages: SmsRoundMessage[] }): Promise<SmsRoundResult> {
    // A few rounds at a time: each is a handful of statements over many messages and a window's worth
    // of submits, so more at once only queue for the same connections (and fail on the pool's timeout).
    let release: () => void;
    try {
      release = await this.roundSlots.acquire(Date.now() + ROUND_SLOT_WAIT_MS);
    } catch (err) {
      if (!(err instanceof DeadlinePassed)) throw err;
      return { outcomes: Object.fromEntries(input.messages.map((m) => [m.messageId, { deferMs: ROUND_SLOT_DEFER_MS }])) };
    }
    try {
      return await this.runRound(input);
    } finally {
      release();
    }
  }

  private async runRound(input: { messages: SmsRoundMessage[] }): Promise<SmsRoundResult> {
    const outcomes: Record<string, SmsRoundOutcome> = {};
    let fresh = input.messages.filter((m) => !m.afterUncertainWait).map((m) => m.messageId);
    if (this.pacing.active && fresh.length > 0) {
      const queued = await this.rounds.listQueued(this.deps.db, fresh);
      const { deferred } = this.pacing.admit(queued);
      for (const { message, deferMs } of deferred) outcomes[message.id] = { deferMs };
      fresh = fresh.filter((id) => !outcomes[id]);
    }
    const claimed = await this.claim(fresh);
    const claimedIds = new Set(claimed.map((m) => m.id));
    for (const m of claimed) if (m.status === 'failed') outcomes[m.id] = { status: 'failed' };
    // Not claimed by the round (past `queued`, or after an uncertain wait): the one-message path.
    const others = input.messages.filter((m) => !outcomes[m.messageId] && !claimedIds.has(m.messageId));
    await Promise.all([
      ...others.map(async (m) => {
        outcomes[m.messageId] = await this.sendOne(m);
      }),
      this.submitClaimed(claimed.filter((m) => m.status === 'sending'), outcomes),
    ]);
    return { outcomes };
  }

  private async claim(ids: string[]): Promise<MessageRow[]> {
    if (ids.length === 0) return [];
    const { events } = this.deps;
    return events.transaction(async (tx) => {
      const rows = await this.rounds.claimForSending(tx, ids);
      await emitMessagesUpdated(events, rows, tx);
      return rows;
    });
  }

  private async sendOne(m: SmsRoundMessage): Promise<SmsRoundOutcome> {
    try {
      const sent = await this.deps.delivery.sendMessage(m);
      return sent.uncertainWaitSeconds ? { uncertainWaitSeconds: sent.uncertainWaitSeconds } : { status: sent.status };
    } catch (err) {
      if (isAppError(err) && err.code === 'resource_missing') return { missing: true };
      return { retry: true };
    }
  }

  /** Submits the claimed messages concurrently, then records and folds them together. */
  private async submitClaimed(messages: MessageRow[], outcomes: Record<string, SmsRoundOutcome>): Promise<void> {
    if (messages.length === 0) return;
    const { config } = this.deps;
    const journal = this.journal;
    for (const m of messages) this.inFlight.set(m.to, (this.inFlight.get(m.to) ?? 0) + 1);
    try {
      const tried = await Promise.all(
        messages.map(async (m) => {
          try {
            const toSubmit = { ...m, body: this.deps.delivery.carrierBody(m) };
            return { m, decision: await this.submitter.submitFirst(toSubmit, { beginAttempt: (row) => journal.begin(row) }) };
          } catch (err) {
            return { m, err };
          }
        }),
      );
      const accepted: { m: MessageRow; decision: Extract<FirstSubmitDecision, { kind: 'accepted' }> }[] = [];
      for (const t of tried) {
        if ('err' in t) outcomes[t.m.id] = await this.afterSubmitFailure(t.m, t.err);
        else if (t.decision.kind === 'wait') outcomes[t.m.id] = { uncertainWaitSeconds: config.messaging.uncertainSubmitWaitSeconds };
        else accepted.push({ m: t.m, decision: t.decision });
      }
      await this.recordAndFold(accepted, outcomes);
    } finally {
      for (const m of messages) {
        const n = (this.inFlight.get(m.to) ?? 1) - 1;
        if (n > 0) this.inFlight.set(m.to, n);
        else this.inFlight.delete(m.to);
      }
    }
  }

  private async afterSubmitFailure(m: MessageRow, err: unknown): Promise<SmsRoundOutcome> {
    if (err instanceof CarrierError && !err.retryable) {
      try {
        await this.deps.delivery.failMessage({ messageId: m.id, errorCode: err.code, errorMessage: err.message });
        return { status: 'failed' };
      } catch {
        return { retry: true };
      }
    }
    return { retry: true };
  }

  /**
   * One transaction records every accepted submit with its events; then the receipts that arrived before
   * it are read in one query and folded in one transaction. A record that fails leaves the journal
   * `submitting`: the retry waits for the receipts (uncertain), never submits blindly.
   */
  private async recordAndFold(
    accepted: { m: MessageRow; decision: Extract<FirstSubmitDecision, { kind: 'accepted' }> }[],
    outcomes: Record<string, SmsRoundOutcome>,
  ): Promise<void> {
    if (accepted.length === 0) return;
    const { config, events, db } = this.deps;
    const submits: AcceptedSubmit[] = accepted.map(({ m, decision }) => ({
      id: m.id,
      carrier: decision.result.carrier,
      carrier_message_ids: decision.result.carrierMessageIds,
      price: priceMessage({ prices: config.messaging.prices, country: m.country, segments: m.segments }),
      attempt: decision.attempt,
    }));
    // The carriers took these messages: a record lost now would leave them waiting as uncertain, so a
    // failed record (the database busy or away for a moment) is tried again before the round gives up.
    const recorded = await withRetries(
      () =>
        events.transaction(async (tx) => {
          const rows = await this.rounds.recordSubmits(tx, submits, { price_currency: config.messaging.priceCurrency, sent_at: new Date() });
          await emitMessagesUpdated(events, rows, tx);
          return rows;
        }),
      RECORD_RETRIES,
    ).catch(() => undefined);
    if (!recorded) {
      for (const { m } of accepted) outcomes[m.id] = { retry: true };
      return;
    }
    for (const { m } of accepted) outcomes[m.id] = { status: 'sent' };
    for (const { m } of accepted) if (m.body_sealed) await this.repo.clearSealedBody(db, m.id).catch(() => undefined);
    // Receipts stored before the record found no message then; nobody else folds them, so this is tried
    // again too. Past the tries they stay stored and the messages `sent` (the round's outcome either way).
    await withRetries(async () => {
      const receipts = await this.rounds.listReceipts(db, recorded.map((m) => m.id));
      const moves = recorded.flatMap((m) => {
        const move = receiptMove(m, receipts.get(m.id) ?? []);
        return move ? [move] : [];
      });
      for (const moved of await this.deps.receiptFolder.apply(moves)) outcomes[moved.id] = { status: moved.status };
    }, RECORD_RETRIES).catch(() => undefined);
  }
}

/**
 * The journal rows of the rounds' submits: every `begin` asked in the same tick goes in one insert (the
 * router calls it before handing each message to its carrier, so the first tries of a whole round, and
 * of the rounds started with it, share one statement; a failover's later try goes in a later one).
 */
class SharedAttemptJournal {
  private pending: { row: AttemptStart; resolve: (attempt: number) => void; reject: (err: unknown) => void }[] = [];

  constructor(
    private readonly db: Kysely<DB>,
    private readonly rounds: MessageRoundRepo,
  ) {}

  begin(row: AttemptStart): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ row, resolve, reject });
    });
  }

  private async flush() {
    const batch = this.pending;
    this.pending = [];
    try {
      const attempts = await this.rounds.beginAttempts(this.db, batch.map((b) => b.row));
      for (const b of batch) {
        const attempt = attempts.get(b.row.message_id);
        if (attempt === undefined) b.reject(new Error(`No journal row for ${b.row.message_id}`));
        else b.resolve(attempt);
      }
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }
}
