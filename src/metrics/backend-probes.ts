import { Inject, Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { NODE_BACKEND, type NodeBackend } from '../backends/node-backend';
import { GatewayConfigService } from '../config/gateway-config.service';
import { EventBus } from '../events/event-bus';
import { DevnetMetrics } from './devnet-metrics';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';

/**
 * Watches the backend from the outside: readiness asks it `health` on every probe (an upstream
 * backend without a healthy upstream fails it, and may also report `upstreams` itself), and with the
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
  ) {}

  onModuleInit(): void {
    const backend = this.backend;
    if (!backend) return;
    this.readiness.addCheck('backend', async () => {
      await backend.health();
      return true;
    });
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
