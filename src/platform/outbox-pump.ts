import type { Logger } from '../observability/logger';

/**
 * LISTENs on a notification channel; `onNotify` runs per notification and once after a reconnection.
 * Resolves with a function that stops listening (db/database.ts: pg-listen, or PGlite's listen).
 */
export type ListenFn = (channel: string, onNotify: () => void) => Promise<() => Promise<void>>;

export interface OutboxPumpOptions {
  /** The NOTIFY channel a commit that wrote outbox rows notifies. */
  channel: string;
  /** How often the outbox is swept for rows no notification announced (or whose claim expired). */
  sweepMs: number;
  /**
   * One round: claim what is waiting and hand it on. `sweep` is true when the sweep timer asked for this
   * round (and none ran since). Resolves true when there may be more right away (a full claim).
   */
  round: (sweep: boolean) => Promise<boolean>;
  /** In-process announcement of committed rows (the writer in this process), if any. */
  onQueued?: (listener: () => void) => () => void;
  log: Logger;
  /** Logged when a round throws (the next wake or sweep tries again). */
  failureMessage: string;
  /** Logged when LISTEN cannot start (the sweep covers). */
  listenFailureMessage: string;
}

/**
 * The claim/wake/sweep loop of an outbox dispatcher (webhook deliveries, SMS): woken by the in-process
 * announcement, by LISTEN on the outbox's channel (commits in other processes) and by a sweep timer; one
 * round at a time, and a wake during a round runs another round after it, so no announcement is lost.
 */
export class OutboxPump {
  private running = false;
  private pumping = false;
  private again = false;
  private sweepDue = false;
  private current?: Promise<void>;
  private sweepTimer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private unlisten?: () => Promise<void>;

  constructor(private readonly opts: OutboxPumpOptions) {}

  get isRunning() {
    return this.running;
  }

  async start(input: { listen?: ListenFn } = {}): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.opts.onQueued?.(() => this.wake());
    if (input.listen) {
      try {
        this.unlisten = await input.listen(this.opts.channel, () => this.wake());
      } catch (err) {
        this.opts.log.warn({ err }, this.opts.listenFailureMessage);
      }
    }
    this.sweepTimer = setInterval(() => this.wake(true), this.opts.sweepMs);
    this.sweepTimer.unref();
    this.wake(true);
  }

  /** Stops waking and (unless `wait` is false) waits for the round in progress. */
  async stop(opts: { wait?: boolean } = {}): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.sweepTimer);
    this.unsubscribe?.();
    await this.unlisten?.().catch(() => undefined);
    if (opts.wait !== false) await this.current;
  }

  /** Runs a round now, or right after the one in progress. */
  wake(sweep = false): void {
    if (!this.running) return;
    if (sweep) this.sweepDue = true;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    this.current = this.pump().finally(() => {
      this.pumping = false;
    });
  }

  private async pump(): Promise<void> {
    do {
      this.again = false;
      const sweep = this.sweepDue;
      this.sweepDue = false;
      try {
        if (await this.opts.round(sweep)) this.again = true;
      } catch (err) {
        this.opts.log.warn({ err }, this.opts.failureMessage);
        return;
      }
    } while (this.again && this.running);
  }
}
