/**
 * Long work on behalf of a client (a scan of the indexes or of the EVM blocks, an EVM execution) runs in
 * slices of a few milliseconds; between slices the event loop gets a turn, so that timers, sockets,
 * other clients and block production go on meanwhile.
 */

/** How long work runs before the event loop gets a turn. */
export const SLICE_MS = 4;

/** Resolves on the event loop's next check phase, after pending I/O and due timers. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The slices of one scan: `pace()` between its steps. */
export class TimeSlice {
  private ends = performance.now() + SLICE_MS;

  /** `signal`: the scan stops (pace throws its reason) once it fires, at the next slice. */
  constructor(private readonly signal?: AbortSignal) {}

  /** Waits for the event loop's next turn once the slice is used up; resolves at once otherwise. */
  async pace(): Promise<void> {
    if (performance.now() < this.ends) return;
    await nextTurn();
    this.signal?.throwIfAborted();
    this.ends = performance.now() + SLICE_MS;
  }
}
