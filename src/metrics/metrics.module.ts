import { Global, Module } from '@nestjs/common';
import { UPSTREAM_OBSERVER } from '../backends/upstream/upstream-observer';
import { EventsModule } from '../events/events.module';
import { BackendProbes } from './backend-probes';
import { Instrumentation } from './instrumentation';
import { MetricsServer } from './metrics-server';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';
import { UpstreamMetrics } from './upstream-metrics';

/**
 * The metrics registry, readiness, the operator's HTTP listener (/metrics, /livez and /readyz), the
 * instrumentation of dispatchers and, with Prometheus on, the observer of the upstream pools; global,
 * so that any module (upstream pools, cache, queue, transports) injects them without importing anything.
 */
@Global()
@Module({
  imports: [EventsModule],
  providers: [
    MetricsService,
    ReadinessService,
    MetricsServer,
    Instrumentation,
    BackendProbes,
    {
      provide: UPSTREAM_OBSERVER,
      inject: [MetricsService],
      useFactory: (metrics: MetricsService): UpstreamMetrics | undefined => (metrics.enabled ? new UpstreamMetrics(metrics.families) : undefined),
    },
  ],
  exports: [MetricsService, ReadinessService, MetricsServer, Instrumentation, UPSTREAM_OBSERVER],
})
export class MetricsModule {}
