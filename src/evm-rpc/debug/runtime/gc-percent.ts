import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { GcMonitor } from './gc-monitor';

const CHECK_MS = 1_000;

/** V8's collector, reachable when node runs with --expose-gc. */
export function exposedGc(): (() => void) | undefined {
  return (globalThis as { gc?: () => void }).gc;
}

/**
 * debug_setGCPercent: Go's GOGC rule on top of V8's own scheduling. With --expose-gc and a
 * non-negative percent, a full collection is forced once the heap has grown by that percent over
 * what the last collection left; a negative percent (Go: GC off) or no --expose-gc forces none.
 */
@Injectable()
export class GcPercent implements OnModuleDestroy {
  private percent = 100;
  private timer: NodeJS.Timeout | undefined;
  private liveAfterGc = process.memoryUsage().heapUsed;
  private seenCollections = 0;

  constructor(private readonly monitor: GcMonitor) {}

  /** Sets the percent and returns the previous one, as Go's debug.SetGCPercent does. */
  set(percent: number): number {
    const previous = this.percent;
    this.percent = percent;
    clearInterval(this.timer);
    this.timer = undefined;
    if (percent >= 0 && exposedGc()) {
      this.timer = setInterval(() => this.check(), CHECK_MS);
      this.timer.unref();
    }
    return previous;
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const heapUsed = process.memoryUsage().heapUsed;
    // A collection V8 ran on its own resets the base, as any collection does in Go.
    if (this.monitor.numGC !== this.seenCollections) {
      this.seenCollections = this.monitor.numGC;
      this.liveAfterGc = Math.min(this.liveAfterGc, heapUsed);
    }
    if (heapUsed < this.liveAfterGc * (1 + this.percent / 100)) return;
    exposedGc()?.();
    this.liveAfterGc = process.memoryUsage().heapUsed;
    this.seenCollections = this.monitor.numGC;
  }
}
