import { Injectable, Optional } from '@nestjs/common';
import { RequestLog } from '../logging/request-log';
import type { RpcEngine } from '../rpc/engine';
import type { Surface } from './metric-families';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';

/**
 * Plugs an interface's engine into everything that watches calls: metrics (counts, durations,
 * in-flight, bytes, batch sizes, refusals), the request log and the shutdown drain.
 */
@Injectable()
export class Instrumentation {
  constructor(
    private readonly metrics: MetricsService,
    private readonly readiness: ReadinessService,
    @Optional() private readonly requestLog?: RequestLog,
  ) {}

  instrument(surface: Surface, engine: RpcEngine): void {
    this.metrics.instrument(surface, engine);
    this.readiness.trackInFlight(() => engine.inFlight);
    if (this.requestLog) engine.addObserver(this.requestLog.observer(surface));
  }
}
