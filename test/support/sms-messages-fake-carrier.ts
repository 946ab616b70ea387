import { CarrierError, type CarrierListener, type DeliveryReceipt, type SubmitSmsRequest, type SubmitSmsResult } from '../../src/sms/carrier';
import type { SmsCarriers } from '../../src/sms/carrier';

/**
 * What the fake does with a message to a given number:
 * - deliver: accepts, then a `delivered` receipt (default)
 * - receipt-first: the `delivered` receipt is handled before the submit result is returned
 * - undeliver: accepts, then an `undelivered` receipt
 * - silent: accepts, never a receipt
 * - reject: permanent CarrierError (`invalid_destination`)
 * - down:N: retryable CarrierError for the first N submits, then receipt-first
 *
 * Tests that await a workflow's result under time skipping use receipt-first: a receipt played on a
 * wall-clock timer could lose the race against the skipped receipt timeout.
 */
export type FakeBehavior = 'deliver' | 'receipt-first' | 'undeliver' | 'silent' | 'reject' | `down:${number}`;

/** A carrier router stand-in at the process edge: records submits and plays receipts back. */
export class FakeSmsCarrier implements SmsCarriers {
  readonly name = 'fake';
  listener?: CarrierListener;
  readonly submitted: SubmitSmsRequest[] = [];
  readonly behaviors = new Map<string, FakeBehavior>();
  private failures = new Map<string, number>();
  private seq = 0;

  async start(listener: CarrierListener) {
    this.listener = listener;
  }

  async stop() {
    this.listener = undefined;
  }

  submitsTo(to: string) {
    return this.submitted.filter((s) => s.to === to);
  }

  async submit(request: SubmitSmsRequest): Promise<SubmitSmsResult> {
    const behavior = this.behaviors.get(request.to) ?? 'deliver';
    if (behavior === 'reject') throw new CarrierError('Destination refused', this.name, 'invalid_destination', false);
    if (behavior.startsWith('down:')) {
      const failed = this.failures.get(request.to) ?? 0;
      if (failed < Number(behavior.slice(5))) {
        this.failures.set(request.to, failed + 1);
        throw new CarrierError('All carriers down', this.name, 'no_carrier_available', true);
      }
    }
    this.submitted.push(request);
    const carrierMessageId = `fake-${++this.seq}`;
    const receipt = (status: DeliveryReceipt['status']): DeliveryReceipt => ({ carrier: this.name, carrierMessageId, status, at: new Date() });
    if (behavior === 'receipt-first' || behavior.startsWith('down:')) {
      await this.listener!.onReceipt(receipt('delivered'));
    } else if (behavior !== 'silent') {
      const status = behavior === 'undeliver' ? 'undelivered' : 'delivered';
      setTimeout(() => void this.listener?.onReceipt(receipt(status)).catch(() => undefined), 20);
    }
    return { carrier: this.name, carrierMessageIds: [carrierMessageId] };
  }

  /** Plays a receipt as the carrier would (tests of late or duplicate receipts). */
  async sendReceipt(carrierMessageId: string, status: DeliveryReceipt['status']) {
    await this.listener!.onReceipt({ carrier: this.name, carrierMessageId, status, at: new Date() });
  }
}
