import { Inject, Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { BACKEND_READINESS, NODE_BACKEND, type BackendReadiness, type NodeBackend } from '../backends/node-backend';
import { GatewayConfigService } from '../config/gateway-config.service';
import { EventBus } from '../events/event-bus';
import { DevnetMetrics } from './devnet-metrics';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';

/**
 * Watches the backend from the outside: readiness asks the backend's own BACKEND_READINESS when it has
 * one (the upstream pools), else its node RPC `health`, on every probe; and with the
 * embedded devnet and Prometheus on, the devnet gauges follow its blocks and mempool.
 */
@Injectable()
export class BackendProbes implements OnModuleInit, OnApplicationShutdown {
  private devnet: DevnetMetrics | undefined;

  constructor(
    private readonly config: GatewayConfigService,
    private readonly metrics: MetricsService,
    private readonly readiness: ReadinessService,
    private readonly bus: EventBus,
    @Optional() @Inject(NODE_BACKEND) private readonly backend?: NodeBackend,
    @Optional() @Inject(BACKEND_READINESS) private readonly backendReady?: BackendReadiness,
  ) {}

  onModuleInit(): void {
    const backend = this.backend;
    if (!backend) return;
    const ready = this.backendReady;
    this.readiness.addCheck(
      'backend',
      ready ??
        (async () => {
          await backend.health();
          return true;
        }),
    );
    // Subscribed before the devnet produces its first block (onApplicationBootstrap).
    if (this.metrics.enabled && this.config.gateway.backend.kind === 'embedded') {
      this.devnet = new DevnetMetrics(this.metrics.families.devnet, this.bus, backend);
      this.devnet.start();
    }
  }

  onApplicationShutdown(): void {
    this.devnet?.stop();
  }
}
