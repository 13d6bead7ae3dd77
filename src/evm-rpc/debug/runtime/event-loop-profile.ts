import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';

/**
 * Node's "blocking" profile: the event loop delay histogram. debug_setBlockProfileRate(rate) turns it
 * on (rate > 0, sampling every max(1, rate/1e6) ms, as Go samples one blocking event per `rate` ns)
 * or off (rate <= 0); debug_writeBlockProfile writes it along with a diagnostic report.
 */
@Injectable()
export class EventLoopProfile implements OnModuleDestroy {
  private histogram: ELDHistogram | undefined;

  setRate(rate: number): void {
    this.histogram?.disable();
    this.histogram = undefined;
    if (rate <= 0) return;
    this.histogram = monitorEventLoopDelay({ resolution: Math.max(1, Math.round(rate / 1e6)) });
    this.histogram.enable();
  }

  /** Delays in ns, or null while the profile is off. */
  snapshot(): Record<string, unknown> | null {
    const h = this.histogram;
    if (!h) return null;
    return { count: h.count, min: h.min, max: h.max, mean: h.mean, stddev: h.stddev, p50: h.percentile(50), p90: h.percentile(90), p99: h.percentile(99) };
  }

  onModuleDestroy(): void {
    this.histogram?.disable();
  }
}
