import { Inject, Module, Optional, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import { AccessModule } from './access/access.module';
import { FileKeys } from './access/api-keys';
import { openedNamespaces } from './access/opened-namespaces';
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
import { QueueModule } from './queue/queue.module';
import type { RpcEngine } from './rpc/engine';
import { Listeners } from './rpc/listeners';
import { RPC_ENGINE } from './rpc/registration';
import { RpcCoreModule } from './rpc/rpc-core.module';

/** A gateway serves both interfaces; a worker (`rpc-gateway worker`) only delivers the broadcast queue. */
export type AppRole = 'gateway' | 'worker';

/**
 * The app, assembled from the configuration: the EVM RPC only with `[json-rpc] enable`, and of it only
 * the namespaces someone can be served (access/opened-namespaces.ts); a worker builds the backend, the
 * queue and metrics, and neither interface.
 */
@Module({})
export class AppModule {
  /** `logger`: the process's pino logger (see createGatewayLogger); `plugins`: those `[plugins]` loads. */
  static forRoot(config: AppConfig, logger: Logger, plugins: readonly LoadedPlugin[], role: AppRole = 'gateway'): DynamicModule {
    const { keys_file } = config.gateway.access;
    const keys = keys_file === '' ? null : new FileKeys(config.home, keys_file);
    const interfaces =
      role === 'worker'
        ? [QueueModule]
        : [NodeRpcModule, ...(config.jsonRpc.enable ? [EvmRpcModule.forRoot(openedNamespaces(config, keys))] : []), PluginsModule.forRoot(plugins)];
    return {
      module: AppModule,
      imports: [
        GatewayConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        RpcCoreModule,
        MetricsModule,
        AccessModule.forRoot(keys),
        EventsModule,
        BackendsModule.forRoot(config.gateway.backend.kind),
        ...interfaces,
      ],
    };
  }

  /** Each interface's engine and listeners are watched by metrics, the request log and the shutdown drain. */
  constructor(
    instrumentation: Instrumentation,
    metrics: MetricsService,
    listeners: Listeners,
    @Optional() @Inject(RPC_ENGINE.node) node?: RpcEngine,
    @Optional() @Inject(RPC_ENGINE.evm) evm?: RpcEngine,
  ) {
    for (const [rpc, engine] of [['node', node], ['evm', evm]] as const) {
      if (!engine) continue;
      instrumentation.instrument(rpc, engine);
      metrics.sampleConnections(rpc, () => listeners.connections(rpc));
    }
  }
}
