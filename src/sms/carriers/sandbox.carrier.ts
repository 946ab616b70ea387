import { randomBytes } from 'node:crypto';
import type { Logger } from '../../observability/logger';
import {
  CarrierError,
  type Carrier,
  type CarrierListener,
  type DeliveryReceipt,
  type InboundSms,
  type SubmitSmsRequest,
  type SubmitSmsResult,
} from '../carrier';
import { segmentSms } from '../segmenter';
import type { Delay, SandboxCarrierConfig } from '../../config/sms-carriers';

/**
 * Recipients with a scripted outcome in the sandbox (US 555-01xx numbers are reserved for fiction, and
 * libphonenumber still counts these as valid). Every other number is delivered. docs/sms-error-codes.md
 * lists them for API users.
 */
export const SANDBOX_MAGIC_NUMBERS = {
  /** submit refused, not retryable: the message ends `failed` with error_code `carrier_rejected`. */
  failAtSubmit: '+12025550100',
  /** accepted, then an UNDELIV receipt (carrierErrorCode `001`): `undelivered`. */
  undelivered: '+12025550101',
  /** accepted, no receipt ever: the message stays `sent`. */
  noReceipt: '+12025550102',
  /** the carrier is down: every submit fails retryably with `carrier_unavailable`. */
  carrierDown: '+12025550103',
  /** the first submit of each message fails retryably (`carrier_unavailable`), the next is accepted. */
  carrierDownOnce: '+12025550104',
} as const;

const LISTENER_RETRIES = 5;

export interface SandboxCarrierOptions {
  config: SandboxCarrierConfig;
  log: Logger;
  random?: () => number;
}

/**
 * The built-in carrier: accepts after a short delay, then reports a delivery receipt through the
 * listener after another; magic recipients script failures. Nothing leaves the process.
 */
export class SandboxCarrier implements Carrier {
  readonly name: string;
  readonly sandbox = true;
  private readonly config: SandboxCarrierConfig;
  private readonly log: Logger;
  private readonly random: () => number;
  private listener?: CarrierListener;
  private available = true;
  private running = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Message ids that already failed once on `carrierDownOnce` (bounded: oldest forgotten first). */
  private readonly failedOnce = new Set<string>();

  constructor(options: SandboxCarrierOptions) {
    this.config = options.config;
    this.name = options.config.name;
    this.log = options.log.child({ carrier: this.name });
    this.random = options.random ?? Math.random;
  }

  isAvailable(): boolean {
    return this.available;
  }

  /** Simulates an outage of the whole carrier (tests): unavailable and every submit fails retryably. */
  setAvailable(available: boolean): void {
    this.available = available;
  }

  async start(listener: CarrierListener): Promise<void> {
    this.listener = listener;
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  async submit(request: SubmitSmsRequest): Promise<SubmitSmsResult> {
    await this.wait(this.config.submit_delay_ms);
    const to = request.to;
    if (!this.available || to === SANDBOX_MAGIC_NUMBERS.carrierDown) {
      throw new CarrierError(`${this.name}: carrier unavailable`, this.name, 'carrier_unavailable', true);
    }
    if (to === SANDBOX_MAGIC_NUMBERS.carrierDownOnce && !this.failedOnce.has(request.messageId)) {
      this.failedOnce.add(request.messageId);
      if (this.failedOnce.size > 10_000) this.failedOnce.delete(this.failedOnce.values().next().value!);
      throw new CarrierError(`${this.name}: carrier unavailable (first attempt)`, this.name, 'carrier_unavailable', true);
    }
    if (to === SANDBOX_MAGIC_NUMBERS.failAtSubmit) {
      throw new CarrierError(`${this.name}: destination refused`, this.name, 'carrier_rejected', false);
    }
    // One id per segment, as a real carrier gives for a concatenated message; the receipt names the first.
    const ids = segmentSms(request.body).parts.map(() => `sbx_${randomBytes(10).toString('hex')}`);
    if (request.requestReceipt && to !== SANDBOX_MAGIC_NUMBERS.noReceipt) {
      const undelivered = to === SANDBOX_MAGIC_NUMBERS.undelivered;
      this.later(this.config.receipt_delay_ms, () =>
        this.notify('onReceipt', {
          carrier: this.name,
          carrierMessageId: ids[0]!,
          status: undelivered ? 'undelivered' : 'delivered',
          ...(undelivered ? { carrierErrorCode: '001' } : {}),
          at: new Date(),
        }),
      );
    }
    return { carrier: this.name, carrierMessageIds: ids };
  }

  /** Delivers an inbound message as if a handset had sent it (tests, console demos). */
  async simulateInbound(message: Omit<InboundSms, 'carrier' | 'receivedAt'> & { receivedAt?: Date }): Promise<void> {
    if (!this.listener) throw new Error(`${this.name}: not started`);
    await this.listener.onInbound({ carrier: this.name, receivedAt: new Date(), ...message, sandbox: true });
  }

  private notify(kind: 'onReceipt', receipt: DeliveryReceipt, attempt = 1): void {
    if (!this.running || !this.listener) return;
    this.listener[kind](receipt).catch((err: unknown) => {
      // Like an SMSC whose deliver_sm was not acknowledged: try again a little later.
      if (attempt >= LISTENER_RETRIES) {
        this.log.error({ err, carrierMessageId: receipt.carrierMessageId }, 'Sandbox receipt dropped after retries');
        return;
      }
      this.later(100 * 2 ** attempt, () => this.notify(kind, receipt, attempt + 1));
    });
  }

  private pick(delay: Delay): number {
    if (typeof delay === 'number') return delay;
    const [min, max] = delay;
    return Math.round(min + this.random() * (max - min));
  }

  private wait(delay: Delay): Promise<void> {
    const ms = this.pick(delay);
    return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
  }

  private later(delay: Delay | number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, this.pick(delay));
    this.timers.add(timer);
  }
}
