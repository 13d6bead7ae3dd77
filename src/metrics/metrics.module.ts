import { Global, Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { BackendProbes } from './backend-probes';
import { Instrumentation } from './instrumentation';
import { MetricsServer } from './metrics-server';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';

/**
 * The metrics registry, readiness, the operator's HTTP listener (/metrics, /livez, /readyz) and the
 * instrumentation of dispatchers; global, so that any module (upstream pools, cache, queue,
 * transports) injects MetricsService or ReadinessService without importing anything.
 */
@Global()
@Module({
  imports: [EventsModule],
  providers: [MetricsService, ReadinessService, MetricsServer, Instrumentation, BackendProbes],
  exports: [MetricsService, ReadinessService, MetricsServer, Instrumentation],
})
export class MetricsModule {}
