import { systemClock, TokenBucket, type Clock } from './carriers/rate-limiter';

/** The longest a round defers a message it holds back for its account's throughput (it is then asked again). */
const MAX_DEFER_MS = 60_000;

/**
 * The per-account SMS throughput (messages/s, `SMS_ACCOUNT_THROUGHPUT`), per worker process and per mode:
 * a token bucket per (account, mode) holding at most one second of messages. A batch round asks it which
 * of its messages may go now; the others are deferred (due again in a later round, not failed, never
 * claimed meanwhile, so they stay `queued` and cancelable). Accounts without a setting are not paced here
 * (the carriers' own max_mps still applies).
 */
export class AccountPacing {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly perSecond: Record<string, number>,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Whether any account is paced (the round skips the look-up of accounts otherwise). */
  get active(): boolean {
    return Object.keys(this.perSecond).length > 0;
  }

  /**
   * Splits messages (in order) into those that may go now (a token each) and those deferred, with how
   * long: the deferred ones of an account in groups of one second's worth, a second apart, so the next
   * rounds take about what the bucket gives.
   */
  admit<T extends { account_id: string; livemode: boolean }>(messages: T[]): { now: T[]; deferred: { message: T; deferMs: number }[] } {
    const now: T[] = [];
    const held = new Map<string, { rate: number; firstWaitMs: number; messages: T[] }>();
    for (const m of messages) {
      const rate = this.perSecond[m.account_id];
      if (rate === undefined) {
        now.push(m);
        continue;
      }
      const key = `${m.account_id}:${m.livemode}`;
      const waiting = held.get(key);
      if (waiting) {
        waiting.messages.push(m);
        continue;
      }
      let bucket = this.buckets.get(key);
      if (!bucket) this.buckets.set(key, (bucket = new TokenBucket(rate, Math.max(1, rate), this.clock)));
      const waitMs = bucket.tryTake();
      if (waitMs === 0) now.push(m);
      else held.set(key, { rate, firstWaitMs: waitMs, messages: [m] });
    }
    const deferred = [...held.values()].flatMap((h) =>
      h.messages.map((message, k) => ({ message, deferMs: Math.min(MAX_DEFER_MS, h.firstWaitMs + Math.floor(k / Math.max(1, h.rate)) * 1000) })),
    );
    return { now, deferred };
  }
}
