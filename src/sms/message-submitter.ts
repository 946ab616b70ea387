import type { Kysely } from 'kysely';
import { CarrierError, type SmsCarriers, type SubmitJournal, type SubmitSmsRequest, type SubmitSmsResult } from './carrier';
import type { DB } from '../db/schema';
import type { MessageRow } from './message.repo';
import { SubmitAttemptRepo } from './submit-attempt.repo';

/** A submit about to be handed to a carrier, as journaled. */
export interface AttemptStart {
  message_id: string;
  carrier: string;
  recipient: string;
  parts: number;
}

export type SubmitDecision =
  | { kind: 'accepted'; result: SubmitSmsResult; attempt: number }
  /** A submit may have gone out unanswered: wait for its receipt before submitting again. */
  | { kind: 'wait' }
  /** The journal has an accepted submit (recorded meanwhile, e.g. a receipt adopted it): nothing to send. */
  | { kind: 'accepted_before' }
  /** A stored receipt answers an open submit: it was accepted under this carrier id (record it, send nothing). */
  | { kind: 'adopt'; carrier: string; carrierMessageId: string };

/** What the first submit of a message can come to (MessageSubmitter.submitFirst): its journal is empty. */
export type FirstSubmitDecision = Extract<SubmitDecision, { kind: 'accepted' | 'wait' }>;

/**
 * Submits a message once: every carrier the router hands it to is journaled (sms_submit_attempts)
 * before the carrier gets it, and each retry decides from the journal.
 * - nothing sent (`not_sent`): submit again, any carrier;
 * - some parts accepted (`partial`): resume on that carrier with the same reference, the rest only;
 * - a part sent and never answered (`uncertain`), or a journal row left `submitting` by a worker that
 *   died or an overlapping retry: do not submit; the caller waits for a receipt (matched by carrier and
 *   handset, see MessageDeliveryService.adoptUncertainSubmit) and only after the wait submits again.
 */
export class MessageSubmitter {
  private readonly attempts = new SubmitAttemptRepo();

  constructor(private readonly deps: { db: Kysely<DB>; carriers?: SmsCarriers }) {}

  /** A message already `sending`: decides from its journal whether to submit, wait or take a submit as accepted. */
  async submit(m: MessageRow, opts: { afterUncertainWait?: boolean } = {}): Promise<SubmitDecision> {
    const { db } = this.deps;
    const carriers = this.configuredCarriers();
    const journal = await this.attempts.listAttempts(db, m.id);
    // The caller read the message `sending` before this read of the journal: a submit accepted and recorded
    // in between (the carrier listener adopting it on its receipt) must not go out again.
    if (journal.some((a) => a.state === 'accepted')) return { kind: 'accepted_before' };
    const open = journal.filter((a) => a.state === 'submitting' || a.state === 'uncertain');
    if (open.length > 0) {
      // A receipt for it may have been stored and acknowledged by a worker that died before recording
      // the submit (no part matched it then, and the SMSC will not send it again): it answers the submit.
      const orphan = await this.attempts.findOrphanReceipt(db, m.to, open);
      if (orphan) return { kind: 'adopt', carrier: orphan.carrier, carrierMessageId: orphan.carrier_message_id };
      if (!opts.afterUncertainWait) {
        await this.attempts.settleOpenAttempts(db, m.id, 'uncertain');
        return { kind: 'wait' };
      }
      // The wait ended with no receipt: the submit most likely never reached the handset.
      await this.attempts.settleOpenAttempts(db, m.id, 'abandoned');
    }
    const last = journal.at(-1);
    const resume = last?.state === 'partial' ? { carrier: last.carrier, acceptedIds: last.accepted_ids, concatRef: last.concat_ref } : undefined;
    return this.handOver(carriers, m, { resume });
  }

  /**
   * A message the caller has just claimed (`queued` → `sending`): its journal is empty, since attempts
   * are journaled only here, for `sending` messages, and no status moves back to `queued` (ALLOWED_FROM).
   * So the journal is not read and there is no accepted submit to find nor an open one to adopt: the
   * submit is accepted, or waits for a receipt when it may have gone out unanswered.
   * `beginAttempt`: journals an attempt instead of the repo's one-row insert (a round's shared insert).
   */
  async submitFirst(m: MessageRow, opts: { beginAttempt?: (row: AttemptStart) => Promise<number> } = {}): Promise<FirstSubmitDecision> {
    return this.handOver(this.configuredCarriers(), m, { beginAttempt: opts.beginAttempt });
  }

  private configuredCarriers(): SmsCarriers {
    if (!this.deps.carriers) throw new CarrierError('No SMS carrier is configured', 'none', 'no_route', false);
    return this.deps.carriers;
  }

  /** Hands the message to the carrier router, journaling every carrier it is given to. */
  private async handOver(
    carriers: SmsCarriers,
    m: MessageRow,
    opts: { resume?: SubmitSmsRequest['resume']; beginAttempt?: (row: AttemptStart) => Promise<number> },
  ): Promise<FirstSubmitDecision> {
    const { db } = this.deps;
    let current = 0;
    const record: SubmitJournal = {
      begin: async ({ carrier }) => {
        const row = { message_id: m.id, carrier, recipient: m.to, parts: m.segments };
        current = opts.beginAttempt ? await opts.beginAttempt(row) : await this.attempts.beginAttempt(db, row);
      },
      fail: async (f) => {
        const state = f.sent === 'none' ? 'not_sent' : f.sent === 'partial' ? 'partial' : 'uncertain';
        await this.attempts.finishAttempt(db, m.id, current, { state, accepted_ids: f.acceptedIds, concat_ref: f.concatRef, error_code: f.code });
      },
    };
    try {
      const result = await carriers.submit(
        { messageId: m.id, accountId: m.account_id, livemode: m.livemode, to: m.to, from: m.from, body: m.body, requestReceipt: true, resume: opts.resume },
        record,
      );
      return { kind: 'accepted', result, attempt: current };
    } catch (err) {
      if (err instanceof CarrierError && err.progress.sent === 'unknown') return { kind: 'wait' };
      throw err;
    }
  }

  /** The message whose unanswered submit a receipt with an unknown carrier id belongs to. */
  async findUncertain(carrier: string, handset: string) {
    return this.attempts.findUncertainAttempt(this.deps.db, carrier, handset);
  }
}
