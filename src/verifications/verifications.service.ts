import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isE164 } from '../domain/channels';
import { classifySender, parseRecipient } from '../domain/phone-addresses';
import type { Config } from '../config/env';
import { deriveKey, keyedHash } from '../domain/secret-box';
import { VerificationRepo } from './verification.repo';
import type { DB } from '../db/schema';
import type { VerificationTable } from '../db/tables/sms';
import type { Selectable } from 'kysely';
import { AppError, notFound } from '../domain/errors';
import { derivedId, IdPrefix, newId } from '../domain/ids';
import type { WorkflowGateway } from '../temporal/workflow-gateway';
import { verificationFinishedSignal, verificationWorkflowContract, verificationWorkflowId } from '../../workflows/shared/verifications.contracts';
import type { EventsService } from '../webhooks/events.service';
import type { MessagesService } from '../sms/messages.service';
import { toVerificationObject, type VerificationCheckObject, type VerificationObject } from './verification.schemas';
import { scopeOf, type Principal, type Scope } from '../domain/principal';

type VerificationRow = Selectable<VerificationTable>;

/**
 * What is stored of a code: `v2:` + HMAC-SHA256 of `<id>:<code>` under a key derived from SERVER_SECRET.
 * The code is never stored, hashes differ per verification, and a copy of the database alone cannot be
 * searched for codes (the key is not in it). Rows from before carry the old hash keyed by the public id.
 */
const hashCode = (key: Buffer, verificationId: string, code: string) => `v2:${keyedHash(key, `${verificationId}:${code}`)}`;
const legacyHashCode = (verificationId: string, code: string) => createHmac('sha256', verificationId).update(code).digest('hex');

const sameHash = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * One-time codes sent by SMS. A verification is `pending` until the right code is checked
 * (`approved`, verification.approved), its lifetime ends (`expired` by the workflow timer,
 * verification.expired) or too many wrong codes were checked (`max_attempts_reached`).
 */
const codeMessage = (code: string, minutes: number) => `Your verification code is ${code}. It expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`;

export class VerificationsService {
  private readonly repo = new VerificationRepo();
  private readonly codeKey: Buffer;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      workflows: WorkflowGateway;
      events: EventsService;
      messages: MessagesService;
      config: Config;
    },
  ) {
    this.codeKey = deriveKey(deps.config.secrets.server, 'otp-code-hash');
  }

  async createVerification(input: { principal: Principal; to: string; channel?: 'sms'; from?: string }): Promise<VerificationObject> {
    const { db, config } = this.deps;
    const to = parseRecipient(input.to);
    if (!to.ok) throw new AppError(isE164(input.to) ? 'parameter_unprocessable' : 'parameter_invalid', `Invalid to: ${to.reason}`, { param: 'to' });
    const from = input.from ?? config.verify.from;
    if (input.from && !classifySender(input.from)) throw new AppError('parameter_invalid', 'Invalid from: not a sender ID, short code or E.164 number', { param: 'from' });
    // A `from` of the caller's choosing must be its own; without one the platform's sender is used.
    if (input.from) await this.deps.messages.assertSender(scopeOf(input.principal), input.from);
    const { codeLength, ttlSeconds, maxAttempts } = config.verify;
    const code = String(randomInt(0, 10 ** codeLength)).padStart(codeLength, '0');
    const id = newId(IdPrefix.verification);
    // The expiry timer first: with Temporal away the request fails (503) before anything is stored or
    // sent. A timer whose verification never got stored expires nothing.
    await this.deps.workflows.start(verificationWorkflowContract, {
      workflowId: verificationWorkflowId(id),
      input: { verificationId: id, ttlSeconds },
      memo: { accountId: input.principal.accountId, verificationId: id },
    });
    const minutes = Math.max(1, Math.round(ttlSeconds / 60));
    // The verification and its code SMS (queued in the SMS outbox) commit together.
    await db.transaction().execute(async (tx) => {
      const message = await this.deps.messages.sendInternalMessage({
        ...scopeOf(input.principal),
        to: to.number,
        from,
        // Stored masked; the real text travels sealed (encrypted) and is dropped once the carrier has it.
        body: codeMessage('*'.repeat(code.length), minutes),
        sealedBody: codeMessage(code, minutes),
        origin: 'verification',
        within: tx,
      });
      await this.repo.insertVerification(tx, {
        id,
        account_id: input.principal.accountId,
        livemode: input.principal.mode === 'live',
        to: to.number,
        channel: input.channel ?? 'sms',
        status: 'pending',
        code_hash: hashCode(this.codeKey, id, code),
        code_length: codeLength,
        max_attempts: maxAttempts,
        message_id: message.id,
        expires_at: new Date(Date.now() + ttlSeconds * 1000),
      });
    });
    return toVerificationObject((await this.repo.getVerification(db, id))!);
  }

  async getVerification(input: Scope & { verificationId: string }): Promise<VerificationObject> {
    const row = await this.repo.getVerificationById(this.deps.db, scopeOf(input), input.verificationId);
    if (!row) throw notFound('verification', input.verificationId);
    return toVerificationObject(row);
  }

  /**
   * Checks a code: constant-time comparison of hashes; each check counts as an attempt, and the last
   * allowed wrong one locks the verification. A verification that is not pending answers 409.
   */
  async checkVerification(input: Scope & { verificationId: string; code: string }): Promise<VerificationCheckObject> {
    const { db } = this.deps;
    const v = await this.repo.getVerificationById(db, scopeOf(input), input.verificationId);
    if (!v) throw notFound('verification', input.verificationId);
    if (v.status === 'pending' && v.expires_at.getTime() <= Date.now()) await this.expireVerification({ verificationId: v.id });
    const counted = await this.repo.countAttempt(db, v.id);
    if (!counted) {
      const now = (await this.repo.getVerification(db, v.id))!;
      throw new AppError('verification_not_pending', `Verification ${v.id} is ${now.status}; it accepts no more codes`, { param: 'id' });
    }
    const given = v.code_hash.startsWith('v2:') ? hashCode(this.codeKey, v.id, input.code) : legacyHashCode(v.id, input.code);
    const valid = sameHash(given, v.code_hash);
    let row = counted;
    if (valid) {
      const approved = await this.finishAndEmit(v.id, 'approved');
      if (approved) {
        row = approved;
        await this.deps.workflows.signalIfRunning(verificationWorkflowId(v.id), verificationFinishedSignal);
      }
    } else if (counted.attempts >= counted.max_attempts) {
      row = (await this.repo.finishVerification(db, v.id, 'max_attempts_reached')) ?? counted;
      await this.deps.workflows.signalIfRunning(verificationWorkflowId(v.id), verificationFinishedSignal);
    }
    return { ...toVerificationObject(row), valid: valid && row.status === 'approved' };
  }

  /** The workflow's timer ran out: a still pending verification expires. */
  async expireVerification(input: { verificationId: string }) {
    await this.finishAndEmit(input.verificationId, 'expired');
  }

  /** Ends a pending verification and emits `verification.<status>` in the same transaction. */
  private async finishAndEmit(verificationId: string, status: 'approved' | 'expired'): Promise<VerificationRow | undefined> {
    const { events } = this.deps;
    return events.transaction(async (tx) => {
      const row = await this.repo.finishVerification(tx, verificationId, status);
      if (!row) return undefined;
      const type = `verification.${status}`;
      await events.emit(
        {
          accountId: row.account_id, livemode: row.livemode,
          type,
          data: toVerificationObject(row),
          eventId: derivedId(IdPrefix.event, row.id, type),
        },
        { tx },
      );
      return row;
    });
  }
}
