/** The last N latencies of an upstream, for least-busy tie-breaks and hedge delays. */
export class LatencyWindow {
  private readonly samples: Float64Array;
  private count = 0;
  private cursor = 0;
  private sortedCache: Float64Array | undefined;

  constructor(size = 256) {
    this.samples = new Float64Array(size);
  }

  add(ms: number): void {
    this.samples[this.cursor] = ms;
    this.cursor = (this.cursor + 1) % this.samples.length;
    if (this.count < this.samples.length) this.count++;
    this.sortedCache = undefined;
  }

  get size(): number {
    return this.count;
  }

  /** The q-quantile (0..1) of the window; undefined while empty. */
  quantile(q: number): number | undefined {
    if (this.count === 0) return undefined;
    this.sortedCache ??= this.samples.slice(0, this.count).sort();
    const index = Math.min(this.count - 1, Math.max(0, Math.ceil(q * this.count) - 1));
    return this.sortedCache[index];
  }
}
