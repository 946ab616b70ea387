/**
 * A per-carrier circuit breaker: `closed` lets every submit through; after `failureThreshold`
 * consecutive failures it is `open` and refuses for `coolDownMs`; then `half_open` lets exactly one
 * probe through: its success closes the circuit, its failure opens it again for another cool-down.
 */
export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  failureThreshold: number;
  coolDownMs: number;
  now?: () => number;
}

export class CircuitBreaker {
  private failures = 0;
  private openedAt?: number;
  private probeInFlight = false;
  private readonly now: () => number;

  constructor(private readonly options: CircuitBreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.options.coolDownMs ? 'half_open' : 'open';
  }

  /** Whether a submit may go through now; in half-open, true for the one probe only. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.probeInFlight) return false;
    this.probeInFlight = true;
    return true;
  }

  /** Whether a submit could go through now, without taking the half-open probe. */
  wouldAllow(): boolean {
    const state = this.state;
    return state === 'closed' || (state === 'half_open' && !this.probeInFlight);
  }

  onSuccess(): void {
    this.failures = 0;
    this.openedAt = undefined;
    this.probeInFlight = false;
  }

  onFailure(): void {
    this.failures++;
    if (this.probeInFlight || this.failures >= this.options.failureThreshold) {
      this.openedAt = this.now();
    }
    this.probeInFlight = false;
  }
}
