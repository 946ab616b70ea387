import type { Logger } from '../observability/logger';
import { CarrierError, type Carrier, type CarrierListener, type SubmitJournal, type SubmitSmsRequest, type SubmitSmsResult } from './carrier';
import { CircuitBreaker, type CircuitState } from './circuit-breaker';

export interface RoutedCarrier {
  carrier: Carrier;
  /** E.164 prefixes served ("+" = everything). */
  prefixes: string[];
  /** Lower is tried first among carriers whose matching prefix has the same length. */
  priority: number;
}

export interface CarrierRouterOptions {
  carriers: RoutedCarrier[];
  /**
   * The sandbox that test-mode messages go to when no sandbox carrier is configured (test mode never
   * reaches a real carrier). Started and stopped with the router; never used for live messages.
   */
  testSandbox?: Carrier;
  /** Account id → carrier names it may use; accounts not listed use all. */
  accountCarriers?: Record<string, string[]>;
  /** A carrier's client must not send a part still queued this long after it got the message. */
  attemptTimeoutMs?: number;
  /** Consecutive failures that open a carrier's circuit, and how long it stays open before a probe. */
  breaker?: { failureThreshold: number; coolDownMs: number };
  now?: () => number;
  log?: Logger;
}

export interface RouteAttempt {
  carrier: string;
  outcome: 'unavailable' | 'circuit_open' | 'failed' | 'timeout';
  code?: string;
}

export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15_000;
export const DEFAULT_BREAKER = { failureThreshold: 5, coolDownMs: 30_000 } as const;

/**
 * Picks carriers for a destination (longest matching prefix first, then priority) and fails over to
 * the next on a retryable CarrierError, a timeout, an unavailable carrier or an open circuit. A
 * non-retryable CarrierError (a bad number) is final and thrown as is. When no carrier takes the
 * message the error is retryable `no_carrier_available`, so the caller's activity retries later; a
 * destination no carrier serves is `no_route` (not retryable).
 *
 * The router is itself a Carrier: `start`/`stop` start and stop every carrier with one listener.
 */
export class CarrierRouter implements Carrier {
  readonly name = 'router';
  private readonly routes: RoutedCarrier[];
  private readonly testSandbox?: Carrier;
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly accountCarriers: Record<string, string[]>;
  private readonly attemptTimeoutMs: number;
  private readonly log?: Logger;

  constructor(options: CarrierRouterOptions) {
    this.routes = options.carriers;
    this.testSandbox = options.carriers.some((r) => r.carrier.sandbox) ? undefined : options.testSandbox;
    if (this.testSandbox) {
      if (!this.testSandbox.sandbox) throw new Error('The test-mode carrier must be a sandbox');
      if (options.carriers.some((r) => r.carrier.name === this.testSandbox!.name)) throw new Error(`Duplicate carrier name '${this.testSandbox.name}'`);
    }
    this.accountCarriers = options.accountCarriers ?? {};
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
    this.log = options.log;
    const breaker = options.breaker ?? DEFAULT_BREAKER;
    for (const c of this.allCarriers()) {
      if (this.breakers.has(c.name)) throw new Error(`Duplicate carrier name '${c.name}'`);
      this.breakers.set(c.name, new CircuitBreaker({ ...breaker, now: options.now }));
    }
  }

  get carriers(): Carrier[] {
    return this.allCarriers();
  }

  private allCarriers(): Carrier[] {
    return [...this.routes.map((r) => r.carrier), ...(this.testSandbox ? [this.testSandbox] : [])];
  }

  carrier(name: string): Carrier | undefined {
    return this.allCarriers().find((c) => c.name === name);
  }

  circuitState(name: string): CircuitState | undefined {
    return this.breakers.get(name)?.state;
  }

  isAvailable(): boolean {
    return this.routes.some((r) => r.carrier.isAvailable() && this.breakers.get(r.carrier.name)!.wouldAllow());
  }

  async start(listener: CarrierListener): Promise<void> {
    await Promise.all(this.allCarriers().map((c) => c.start(listener)));
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.allCarriers().map((c) => c.stop()));
  }

  /**
   * Carriers that may take a message to `to`, in the order they are tried. Throws `no_route` when none.
   * A test-mode message (`livemode` false) goes only to sandbox carriers, whatever prefixes and account
   * restrictions say: test mode never reaches a real carrier.
   */
  route(to: string, accountId: string | undefined, livemode: boolean): Carrier[] {
    if (!livemode) {
      const sandboxes = this.allCarriers().filter((c) => c.sandbox);
      if (!sandboxes.length) throw new CarrierError('No sandbox carrier for a test-mode message', this.name, 'no_route', false);
      return sandboxes;
    }
    const allowed = accountId ? this.accountCarriers[accountId] : undefined;
    const candidates = this.routes
      .filter((r) => !allowed || allowed.includes(r.carrier.name))
      .map((r, index) => ({ r, index, match: Math.max(-1, ...r.prefixes.filter((p) => to.startsWith(p)).map((p) => p.length)) }))
      .filter((c) => c.match >= 0)
      .sort((a, b) => b.match - a.match || a.r.priority - b.r.priority || a.index - b.index);
    if (!candidates.length) {
      throw new CarrierError(`No carrier serves ${to.slice(0, 4)}…`, this.name, 'no_route', false);
    }
    return candidates.map((c) => c.r.carrier);
  }

  /**
   * Hands the message to the first carrier that takes it. Each carrier is recorded in `journal` before
   * it gets the message, with a deadline after which its client must not send a part still queued. A
   * carrier that failed with nothing sent is failed over; one that accepted some parts (`partial`) or
   * may have accepted one (`unknown`: sent, never answered) is not: the error carries that progress so
   * the caller resumes on that carrier or waits for evidence, never sending a part twice.
   */
  async submit(request: SubmitSmsRequest, journal?: SubmitJournal): Promise<SubmitSmsResult> {
    const attempts: RouteAttempt[] = [];
    let carriers = this.route(request.to, request.accountId, request.livemode);
    if (request.resume) carriers = carriers.filter((c) => c.name === request.resume!.carrier);
    for (const carrier of carriers) {
      const breaker = this.breakers.get(carrier.name)!;
      if (!carrier.isAvailable()) {
        attempts.push({ carrier: carrier.name, outcome: 'unavailable' });
        continue;
      }
      if (!breaker.tryAcquire()) {
        attempts.push({ carrier: carrier.name, outcome: 'circuit_open' });
        continue;
      }
      await journal?.begin({ carrier: carrier.name });
      try {
        const result = await this.withTimeout(carrier, carrier.submit({ ...request, deadline: Date.now() + this.attemptTimeoutMs }));
        breaker.onSuccess();
        return result;
      } catch (err) {
        // Carriers report what left them on their CarrierErrors; any other error (a bug) is taken as
        // thrown before sending.
        const failure = err instanceof CarrierError ? err : new CarrierError(String(err), carrier.name, 'carrier_error', true);
        await journal?.fail({ carrier: carrier.name, code: failure.code, ...failure.progress });
        if (!failure.retryable && failure.progress.sent === 'none') {
          // The carrier answered (it is healthy); the message itself is refused everywhere.
          breaker.onSuccess();
          throw failure;
        }
        breaker.onFailure();
        if (failure.progress.sent !== 'none') {
          const code = failure.progress.sent === 'partial' ? 'submit_partial' : 'submit_uncertain';
          throw new CarrierError(`${carrier.name}: ${failure.message}`, carrier.name, code, failure.retryable, failure.progress);
        }
        attempts.push({ carrier: carrier.name, outcome: failure.code === 'carrier_timeout' ? 'timeout' : 'failed', code: failure.code });
        this.log?.warn(
          { carrier: carrier.name, messageId: request.messageId, code: failure.code, err: err instanceof CarrierError ? undefined : err },
          'Carrier submit failed with nothing sent; trying the next carrier',
        );
      }
    }
    const summary = attempts.map((a) => `${a.carrier}: ${a.code ?? a.outcome}`).join('; ');
    throw new CarrierError(`No carrier took the message (${summary || 'none available'})`, this.name, 'no_carrier_available', true);
  }

  /**
   * A safety net over one carrier's submit: the carrier's own deadline and response timeouts settle it
   * first; should it hang past twice the attempt timeout, its outcome is unknown (it may still send).
   */
  private withTimeout(carrier: Carrier, submit: Promise<SubmitSmsResult>): Promise<SubmitSmsResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new CarrierError(`${carrier.name}: no outcome within ${2 * this.attemptTimeoutMs} ms`, carrier.name, 'carrier_timeout', true, {
              sent: 'unknown',
              acceptedIds: [],
              concatRef: null,
            }),
          ),
        2 * this.attemptTimeoutMs,
      );
    });
    submit.catch(() => undefined); // a late failure after the timeout is not unhandled
    return Promise.race([submit, timeout]).finally(() => clearTimeout(timer));
  }
}
