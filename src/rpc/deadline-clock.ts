/**
 * Deadlines of things in flight (calls, upstream exchanges), checked by one interval timer that runs
 * only while some are pending. A timer of each call's own, armed and cleared around every call, costs a
 * one-at-a-time caller more than the rest of the call: Node keeps a timer list per duration and drops
 * it, with its place in the timer queue, whenever it empties, which is after every call when calls come
 * one at a time. An item is only appended here; settled ones are dropped at the next check, and an
 * expired one is told at most one tick late.
 */
export interface Expiring {
  /** When it expires, in performance.now() time. */
  readonly deadline: number;
  /** Settled: nothing is to be done when its deadline passes. */
  readonly done: boolean;
  expire(): void;
}

export class DeadlineClock {
  private items: Expiring[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly tickMs: number) {}

  add(item: Expiring): void {
    this.items.push(item);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.check(), this.tickMs);
      // What is in flight keeps the process alive by its socket, not by its deadline.
      this.timer.unref();
    }
  }

  private check(): void {
    const now = performance.now();
    const pending: Expiring[] = [];
    for (const item of this.items) {
      if (item.done) continue;
      if (item.deadline <= now) item.expire();
      else pending.push(item);
    }
    this.items = pending;
    if (pending.length === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
