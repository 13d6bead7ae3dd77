import { Inject, Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import { AccessModule } from './access/access.module';
import { BackendsModule } from './backends/backends.module';
import { GatewayConfigModule } from './config/config.module';
import type { AppConfig } from './config/config.types';
import { EventsModule } from './events/events.module';
import { EvmRpcModule } from './evm-rpc/evm-rpc.module';
import { LoggingModule } from './logging/logging.module';
import { Instrumentation } from './metrics/instrumentation';
import { MetricsModule } from './metrics/metrics.module';
import { MetricsService } from './metrics/metrics.service';
import { NodeRpcModule } from './node-rpc/node-rpc.module';
import type { LoadedPlugin } from './plugins/loader';
import { PluginsModule } from './plugins/plugins.module';
import type { RpcEngine } from './rpc/engine';
import { Listeners } from './rpc/listeners';
import { RPC_ENGINE } from './rpc/registration';
import { RpcCoreModule } from './rpc/rpc-core.module';

@Module({})
export class AppModule {
  /** `logger`: the process's pino logger (see createGatewayLogger); `plugins`: those `[plugins]` loads. */
  static forRoot(config: AppConfig, logger: Logger, plugins: readonly LoadedPlugin[]): DynamicModule {
    return {
      module: AppModule,
      imports: [
        GatewayConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        RpcCoreModule,
        MetricsModule,
        AccessModule,
        EventsModule,
        BackendsModule.forRoot(config.gateway.backend.kind),
        NodeRpcModule,
        EvmRpcModule,
        PluginsModule.forRoot(plugins),
      ],
    };
  }

  /** Each interface's engine and listeners are watched by metrics, the request log and the shutdown drain. */
  constructor(
    instrumentation: Instrumentation,
    metrics: MetricsService,
    listeners: Listeners,
    @Inject(RPC_ENGINE.node) node: RpcEngine,
    @Inject(RPC_ENGINE.evm) evm: RpcEngine,
  ) {
    instrumentation.instrument('node', node);
    instrumentation.instrument('evm', evm);
    metrics.sampleConnections('node', () => listeners.connections('node'));
    metrics.sampleConnections('evm', () => listeners.connections('evm'));
  }
}
