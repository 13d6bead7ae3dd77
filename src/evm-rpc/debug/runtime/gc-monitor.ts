import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PerformanceObserver, performance } from 'node:perf_hooks';

/** Pauses kept for debug_gcStats (Go keeps 256 too). */
const KEPT_PAUSES = 256;

interface Pause {
  readonly durationNs: number;
  readonly endedAt: number;
}

/** Watches V8's garbage collections (perf_hooks `gc` entries) for debug_gcStats and debug_memStats. */
@Injectable()
export class GcMonitor implements OnModuleInit, OnModuleDestroy {
  private readonly pauses: Pause[] = [];
  private count = 0;
  private totalNs = 0;
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const pause = { durationNs: Math.round(entry.duration * 1e6), endedAt: performance.timeOrigin + entry.startTime + entry.duration };
      this.count++;
      this.totalNs += pause.durationNs;
      this.pauses.unshift(pause);
      if (this.pauses.length > KEPT_PAUSES) this.pauses.pop();
    }
  });

  onModuleInit(): void {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  onModuleDestroy(): void {
    this.observer.disconnect();
  }

  get numGC(): number {
    return this.count;
  }

  get pauseTotalNs(): number {
    return this.totalNs;
  }

  /** Epoch ms of the end of the last collection, 0 before the first. */
  get lastGC(): number {
    return this.pauses[0]?.endedAt ?? 0;
  }

  /** go-ethereum's debug.GCStats shape: durations in ns, most recent first. */
  stats(): Record<string, unknown> {
    return {
      LastGC: new Date(this.lastGC).toISOString(),
      NumGC: this.count,
      PauseTotal: this.totalNs,
      Pause: this.pauses.map((p) => p.durationNs),
      PauseEnd: this.pauses.map((p) => new Date(p.endedAt).toISOString()),
      PauseQuantiles: null,
    };
  }
}
