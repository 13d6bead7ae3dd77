import { Inject, Injectable, Logger, Module, type DynamicModule, type OnModuleInit, type Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { BACKEND_SERVICES, type BackendServices } from '../backends/backend-services';
import { ConfigError } from '../config/config-error';
import { GatewayConfigService } from '../config/gateway-config.service';
import { EventBus } from '../events/event-bus';
import { EventsModule } from '../events/events.module';
import { MetricsService } from '../metrics/metrics.service';
import { BROADCAST_QUEUE, type BroadcastQueue } from '../queue/broadcast-queue';
import { QueueModule } from '../queue/queue.module';
import type { MethodRegistry } from '../rpc/method-registry';
import type { Invoker } from '../rpc/invoker';
import { INVOKER, METHOD_REGISTRY } from '../rpc/registration';
import type { PluginContext, PluginLogger } from './api';
import { pluginEvents } from './plugin-events';
import { GatewayViewService } from './gateway-view';
import type { LoadedPlugin } from './loader';
import type { CatalogEntry } from './plugin-catalog';
import { pluginMethods } from './plugin-methods';
import { pluginMetrics } from './plugin-metrics';
import { pluginSubscriptions } from './plugin-subscriptions';

/**
 * The loaded plugins and their methods (what the operator's view lists). It registers them once every
 * module is built, after the built-in methods, so a clash is always the plugin's and names it.
 */
@Injectable()
export class PluginCatalog implements OnModuleInit {
  readonly entries: CatalogEntry[] = [];

  constructor(
    @Inject(METHOD_REGISTRY.node) private readonly node: MethodRegistry,
    @Inject(METHOD_REGISTRY.evm) private readonly evm: MethodRegistry,
  ) {}

  onModuleInit(): void {
    for (const { plugin, methods } of this.entries) {
      const { name, interface: rpc } = plugin.manifest;
      for (const method of methods) {
        try {
          (rpc === 'node' ? this.node : this.evm).register(method, `plugin ${name}`);
        } catch (err) {
          throw new ConfigError(`plugin ${name}: ${(err as Error).message}`);
        }
      }
    }
  }
}

function pluginLogger(name: string): PluginLogger {
  const logger = new Logger(`plugin ${name}`);
  return { debug: (m) => logger.debug(m), log: (m) => logger.log(m), warn: (m) => logger.warn(m), error: (m) => logger.error(m) };
}

/** One plugin as a NestJS provider: its context built from the gateway's services, its methods in the catalog. */
function pluginProvider(plugin: LoadedPlugin): Provider {
  const { manifest } = plugin;
  return {
    provide: `plugin:${manifest.name}`,
    inject: [
      INVOKER.node,
      INVOKER.evm,
      BACKEND_SERVICES,
      EventBus,
      GatewayViewService,
      PluginCatalog,
      ModuleRef,
      GatewayConfigService,
      { token: MetricsService, optional: true },
    ],
    useFactory: (
      node: Invoker,
      evm: Invoker,
      backend: BackendServices,
      events: EventBus,
      gateway: GatewayViewService,
      catalog: PluginCatalog,
      modules: ModuleRef,
      config: GatewayConfigService,
      metrics?: MetricsService,
    ) => {
      const logger = pluginLogger(manifest.name);
      const context: PluginContext<unknown> = {
        name: manifest.name,
        config: plugin.config,
        node,
        evm,
        addressHistory: backend.addressHistory,
        events: pluginEvents(manifest.name, events, backend),
        subscriptions: pluginSubscriptions(manifest.interface, modules),
        logger,
        metrics: pluginMetrics(metrics),
        gateway,
      };
      const families = metrics?.enabled ? metrics.families.plugins : undefined;
      const errors = families?.errors.labels({ plugin: manifest.name });
      const sink = {
        logger,
        count: () => errors?.inc(),
        blocked: (method: string) => families?.blocks.inc({ plugin: manifest.name, method }),
        quarantineMs: config.gateway.plugins.blocking_quarantine,
        quarantined: (method: string) => families?.outOfService.set({ plugin: manifest.name, method }, 1),
      };
      catalog.entries.push({ plugin, methods: pluginMethods(plugin, context, sink) });
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
          inject: [GatewayConfigService, PluginCatalog, BACKEND_SERVICES, BROADCAST_QUEUE],
          useFactory: (config: GatewayConfigService, catalog: PluginCatalog, backend: BackendServices, queue: BroadcastQueue) =>
            new GatewayViewService(config.all, () => catalog.entries, backend, queue),
        },
        ...plugins.map(pluginProvider),
      ],
      exports: [PluginCatalog],
    };
  }
}
