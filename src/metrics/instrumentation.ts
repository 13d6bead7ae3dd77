import { Injectable, Optional } from '@nestjs/common';
import { RequestLog } from '../logging/request-log';
import type { Dispatcher } from '../rpc/dispatcher';
import type { Surface } from './metric-families';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';

/**
 * Plugs a surface's dispatcher into everything that watches calls: metrics (counts, durations,
 * in-flight, refusals), the request log and the shutdown drain. One line per surface:
 * `instrumentation.instrument('evm', evmDispatcher)`.
 */
@Injectable()
export class Instrumentation {
  constructor(
    private readonly metrics: MetricsService,
    private readonly readiness: ReadinessService,
    @Optional() private readonly requestLog?: RequestLog,
  ) {}

  instrument(surface: Surface, dispatcher: Dispatcher): void {
    this.metrics.instrument(surface, dispatcher);
    this.readiness.trackInFlight(() => dispatcher.inFlight);
    if (this.requestLog) dispatcher.addObserver(this.requestLog.observer(surface));
  }
}
