/**
 * The abort of one upstream read that identical concurrent reads share (deduplicated): it fires once every
 * caller that joined has given up (its call's signal fired at its deadline); a caller without a signal never
 * gives up, so the read then runs to its end.
 */
export class JointAbort {
  private readonly controller = new AbortController();
  private waiting = 0;
  private kept = false;

  /** `first`: the signal of the caller that starts the read. */
  constructor(first: AbortSignal) {
    this.join(first);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  join(signal: AbortSignal | undefined): void {
    if (signal === undefined) {
      this.kept = true;
      return;
    }
    if (signal.aborted) return;
    this.waiting++;
    signal.addEventListener(
      'abort',
      () => {
        if (--this.waiting === 0 && !this.kept) this.controller.abort(signal.reason);
      },
      { once: true },
    );
  }
}
