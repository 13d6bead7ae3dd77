/**
 * A per-upstream circuit breaker over a ring of the last `window` outcomes: `failures` failures in a
 * full window open it; after `openMs` it is half-open and lets one trial request through, whose
 * success closes it (with a fresh window) and whose failure opens it again.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export class CircuitBreaker {
  private readonly ring: boolean[] = [];
  private cursor = 0;
  private failureCount = 0;
  private openedAt = 0;
  private trialInFlight = false;
  private current: BreakerState = 'closed';
  /** How many times the breaker opened (for metrics). */
  opens = 0;

  constructor(
    private readonly failures: number,
    private readonly window: number,
    private readonly openMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): BreakerState {
    if (this.current === 'open' && this.now() - this.openedAt >= this.openMs) {
      this.current = 'half-open';
      this.trialInFlight = false;
    }
    return this.current;
  }

  /** Whether a request may go now; in half-open state this takes the one trial slot. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  /** Whether a request could go (without taking the trial slot). */
  get admits(): boolean {
    const state = this.state;
    return state === 'closed' || (state === 'half-open' && !this.trialInFlight);
  }

  success(): void {
    if (this.current === 'half-open') {
      this.reset();
      return;
    }
    this.record(false);
  }

  failure(): void {
    if (this.current === 'half-open') {
      this.open();
      return;
    }
    if (this.current === 'open') return;
    this.record(true);
    if (this.ring.length >= Math.min(this.window, this.failures) && this.failureCount >= this.failures) this.open();
  }

  private record(failed: boolean): void {
    if (this.ring.length < this.window) {
      this.ring.push(failed);
    } else {
      if (this.ring[this.cursor]) this.failureCount--;
      this.ring[this.cursor] = failed;
      this.cursor = (this.cursor + 1) % this.window;
    }
    if (failed) this.failureCount++;
  }

  private open(): void {
    this.current = 'open';
    this.openedAt = this.now();
    this.trialInFlight = false;
    this.opens++;
  }

  /** Closed with a fresh window (a trial succeeded, or its upstream came back from down). */
  reset(): void {
    this.current = 'closed';
    this.ring.length = 0;
    this.cursor = 0;
    this.failureCount = 0;
    this.trialInFlight = false;
  }
}
