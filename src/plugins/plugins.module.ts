import { Logger, Module, type DynamicModule, type Provider } from '@nestjs/common';
import { EVM_BACKEND, type EvmBackend } from '../backends/evm-backend';
import { BACKEND_POOLS, NODE_BACKEND, type BackendPools, type NodeBackend } from '../backends/node-backend';
import { ConfigError } from '../config/config-error';
import { GatewayConfigService } from '../config/gateway-config.service';
import { EventBus } from '../events/event-bus';
import { EventsModule } from '../events/events.module';
import { MetricsService } from '../metrics/metrics.service';
import { BROADCAST_QUEUE, type BroadcastQueue } from '../queue/broadcast-queue';
import { QueueModule } from '../queue/queue.module';
import type { MethodRegistry } from '../rpc/method-registry';
import { METHOD_REGISTRY } from '../rpc/registration';
import type { PluginContext, PluginLogger } from './api';
import { GatewayViewService } from './gateway-view';
import type { LoadedPlugin } from './loader';
import type { CatalogEntry } from './plugin-catalog';
import { pluginMethods } from './plugin-methods';
import { pluginMetrics } from './plugin-metrics';

/** The loaded plugins and the methods each registered (what the operator's view lists). */
export class PluginCatalog {
  readonly entries: CatalogEntry[] = [];
}

function pluginLogger(name: string): PluginLogger {
  const logger = new Logger(`plugin ${name}`);
  return { debug: (m) => logger.debug(m), log: (m) => logger.log(m), warn: (m) => logger.warn(m), error: (m) => logger.error(m) };
}

/** One plugin as a NestJS provider: its context built from the gateway's services, its methods registered. */
function pluginProvider(plugin: LoadedPlugin): Provider {
  const { manifest } = plugin;
  return {
    provide: `plugin:${manifest.name}`,
    inject: [METHOD_REGISTRY[manifest.interface], NODE_BACKEND, EVM_BACKEND, EventBus, GatewayViewService, PluginCatalog, { token: MetricsService, optional: true }],
    useFactory: (registry: MethodRegistry, node: NodeBackend, evm: EvmBackend, events: EventBus, gateway: GatewayViewService, catalog: PluginCatalog, metrics?: MetricsService) => {
      const logger = pluginLogger(manifest.name);
      const context: PluginContext<unknown> = { name: manifest.name, config: plugin.config, node, evm, events, logger, metrics: pluginMetrics(metrics), gateway };
      const errors = metrics?.enabled ? metrics.families.plugins.errors.labels({ plugin: manifest.name }) : undefined;
      const methods = pluginMethods(manifest, manifest.methods(context), { logger, count: () => errors?.inc() });
      for (const method of methods) {
        try {
          registry.register(method, `plugin ${manifest.name}`);
        } catch (err) {
          throw new ConfigError(`plugin ${manifest.name}: ${(err as Error).message}`);
        }
      }
      catalog.entries.push({ plugin, methods });
      return manifest.name;
    },
  };
}

/**
 * The loaded plugins (see loader.ts): each registers its methods with its interface's registry through
 * the same door as the built-in modules, with a context of the public API (src/plugins/api.ts).
 */
@Module({})
export class PluginsModule {
  static forRoot(plugins: readonly LoadedPlugin[]): DynamicModule {
    return {
      module: PluginsModule,
      imports: [EventsModule, QueueModule],
      providers: [
        PluginCatalog,
        {
          provide: GatewayViewService,
          inject: [GatewayConfigService, PluginCatalog, { token: BACKEND_POOLS, optional: true }, BROADCAST_QUEUE],
          useFactory: (config: GatewayConfigService, catalog: PluginCatalog, pools: BackendPools | undefined, queue: BroadcastQueue) =>
            new GatewayViewService(config.all, () => catalog.entries, pools, queue),
        },
        ...plugins.map(pluginProvider),
      ],
      exports: [PluginCatalog],
    };
  }
}
