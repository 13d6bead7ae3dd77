/**
 * The last N latencies of an upstream, for least-busy tie-breaks and hedge delays. Quantiles read a
 * sorted copy, made again once a sixteenth of the window is newer than it: every request adds a
 * sample and may ask a quantile, and sorting the whole window each time would cost more than the rest.
 */
export class LatencyWindow {
  private readonly samples: Float64Array;
  private count = 0;
  private cursor = 0;
  private sorted: Float64Array | undefined;
  /** Samples added since `sorted` was made. */
  private unsorted = 0;

  constructor(size = 256) {
    this.samples = new Float64Array(size);
  }

  add(ms: number): void {
    this.samples[this.cursor] = ms;
    this.cursor = (this.cursor + 1) % this.samples.length;
    if (this.count < this.samples.length) this.count++;
    this.unsorted++;
  }

  /**
   * A latency known only to be at least `ms` (an attempt cut short by a hedge): taken as a sample when
   * it is above the median or nothing is known yet; a shorter one would tell nothing.
   */
  addLowerBound(ms: number): void {
    const median = this.quantile(0.5);
    if (median === undefined || ms > median) this.add(ms);
  }

  /** Forgets every sample (an upstream back from down: what it took before tells nothing now). */
  clear(): void {
    this.count = 0;
    this.cursor = 0;
    this.sorted = undefined;
    this.unsorted = 0;
  }

  get size(): number {
    return this.count;
  }

  /** The q-quantile (0..1) of the window; undefined while empty. */
  quantile(q: number): number | undefined {
    if (this.count === 0) return undefined;
    if (this.sorted === undefined || this.unsorted * 16 > this.count) {
      this.sorted = this.samples.slice(0, this.count).sort();
      this.unsorted = 0;
    }
    const n = this.sorted.length;
    return this.sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))];
  }
}
