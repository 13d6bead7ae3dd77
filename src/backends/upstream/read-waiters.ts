import type { CallExpiry } from '../../rpc/within-deadline';

/**
 * The calls that wait for one upstream read (identical concurrent reads share it): the read is abandoned
 * once every one of them has timed out; a call without a deadline waits until the read ends. The
 * upstream exchange reads `abandoned` on its deadline clock's tick.
 */
export class ReadWaiters {
  private readonly calls: CallExpiry[];
  private kept = false;

  /** `first`: the deadline of the call that starts the read. */
  constructor(first: CallExpiry) {
    this.calls = [first];
  }

  get abandoned(): boolean {
    if (this.kept) return false;
    for (const call of this.calls) if (!call.expired) return false;
    return true;
  }

  /** Another call waits for the same read (`undefined`: one without a deadline). */
  join(expiry: CallExpiry | undefined): void {
    if (expiry === undefined) this.kept = true;
    else this.calls.push(expiry);
  }
}
