import { Inject, Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { BACKEND_SERVICES, type BackendServices } from '../backends/backend-services';
import type { Invoker } from '../rpc/invoker';
import { INVOKER } from '../rpc/registration';
import { GatewayConfigService } from '../config/gateway-config.service';
import { EventBus } from '../events/event-bus';
import { sampleCaches } from './cache-metrics';
import { DevnetMetrics } from './devnet-metrics';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';

/**
 * Watches the backend from the outside: readiness asks the backend on every probe; with Prometheus on,
 * the response-cache families read the backend's caches at scrape time (either backend), and with the
 * embedded devnet the devnet gauges follow its blocks and mempool.
 */
@Injectable()
export class BackendProbes implements OnModuleInit, OnApplicationShutdown {
  private devnet: DevnetMetrics | undefined;
  private stopCacheMetrics: (() => void) | undefined;

  constructor(
    private readonly config: GatewayConfigService,
    private readonly metrics: MetricsService,
    private readonly readiness: ReadinessService,
    private readonly bus: EventBus,
    @Optional() @Inject(BACKEND_SERVICES) private readonly backend?: BackendServices,
    @Optional() @Inject(INVOKER.node) private readonly node?: Invoker,
  ) {}

  onModuleInit(): void {
    const backend = this.backend;
    if (!backend || !this.node) return;
    this.readiness.addCheck('backend', () => backend.ready());
    if (this.metrics.enabled) this.stopCacheMetrics = sampleCaches(this.metrics.families.cache, backend);
    // Subscribed before the devnet produces its first block (onApplicationBootstrap).
    if (this.metrics.enabled && this.config.gateway.backend.kind === 'embedded') {
      this.devnet = new DevnetMetrics(this.metrics.families.devnet, this.bus, this.node);
      this.devnet.start();
    }
  }

  onApplicationShutdown(): void {
    this.stopCacheMetrics?.();
    this.devnet?.stop();
  }
}
