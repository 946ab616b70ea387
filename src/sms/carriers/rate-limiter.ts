/**
 * Flow control for a carrier connection: a token bucket for the messages-per-second cap and a counting
 * semaphore for the submit window. Both take an injected clock/sleep so tests account tokens exactly.
 */

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * `ratePerSecond` tokens per second, at most `burst` held. `take()` waits its turn (FIFO) until a token
 * is there, so over any interval T at most `burst + rate × T` submits leave.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(ratePerSecond > 0) || !(burst >= 1)) throw new Error('TokenBucket needs a positive rate and a burst of at least 1');
    this.tokens = burst;
    this.last = clock.now();
  }

  private refill(): void {
    const now = this.clock.now();
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.ratePerSecond) / 1000);
      this.last = now;
    }
  }

  /** Tokens available now (fractional). */
  available(): number {
    this.refill();
    return this.tokens;
  }

  /** Takes a token if one is there and returns 0; otherwise takes nothing and returns the ms until one is. */
  tryTake(): number {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.ratePerSecond));
  }

  /** Waits for a token, in arrival order. */
  take(): Promise<void> {
    const turn = this.tail.then(async () => {
      for (let wait = this.tryTake(); wait > 0; wait = this.tryTake()) await this.clock.sleep(wait);
    });
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Empties the bucket (the carrier said we are too fast): the next token comes after 1/rate s. */
  drain(): void {
    this.refill();
    this.tokens = Math.min(this.tokens, 0);
  }
}

/** A wait given up at its deadline. */
export class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
}

/** A counting semaphore: at most `size` holders; waiters are served in arrival order. */
export class Semaphore {
  private held = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(readonly size: number) {}

  get inUse(): number {
    return this.held;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Waits for a slot; with `deadline` (epoch ms), gives up waiting then and rejects with DeadlinePassed. */
  async acquire(deadline?: number): Promise<() => void> {
    if (this.held < this.size) {
      this.held++;
    } else {
      await new Promise<void>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const waiter = () => {
          clearTimeout(timer);
          resolve();
        };
        this.waiters.push(waiter);
        if (deadline !== undefined) {
          timer = setTimeout(() => {
            const i = this.waiters.indexOf(waiter);
            if (i < 0) return;
            this.waiters.splice(i, 1);
            reject(new DeadlinePassed());
          }, Math.max(0, deadline - Date.now()));
        }
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next();
      else this.held--;
    };
  }
}
