import { Inject, Module } from '@nestjs/common';
import { NODE_BACKEND, type NodeBackend } from '../../backends/node-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { EventBus } from '../../events/event-bus';
import { EventsModule } from '../../events/events.module';
import { MetricsService } from '../../metrics/metrics.service';
import type { MethodRegistry } from '../../rpc/method-registry';
import { NODE_REGISTRY, NodeRpcCoreModule } from '../node-rpc-core.module';
import { SubscriptionService } from './subscription.methods';

@Module({
  imports: [NodeRpcCoreModule, EventsModule],
  providers: [
    {
      provide: SubscriptionService,
      inject: [EventBus, NODE_BACKEND, GatewayConfigService, { token: MetricsService, optional: true }],
      useFactory: (bus: EventBus, backend: NodeBackend, config: GatewayConfigService, metrics?: MetricsService) =>
        new SubscriptionService(bus, backend, config, metrics),
    },
  ],
})
export class SubscriptionsModule {
  constructor(@Inject(NODE_REGISTRY) registry: MethodRegistry, service: SubscriptionService) {
    registry.registerAll(service.methods());
  }
}
