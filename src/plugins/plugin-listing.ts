import type { AppConfig } from '../config/config.types';
import type { EventBus } from '../events/event-bus';
import type { JsonObject } from '../rpc/json';
import type { PluginContext, PluginInvoker } from './api';
import { GatewayViewService } from './gateway-view';
import type { LoadedPlugin } from './loader';
import { describePlugins, type CatalogEntry } from './plugin-catalog';
import { pluginMethods } from './plugin-methods';
import { pluginMetrics } from './plugin-metrics';

/** A backend that is not running: listing builds definitions, it never calls a handler. */
function idle<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get: (_target, key) => () => Promise.reject(new Error(`${what}.${String(key)}: no backend runs while plugins are listed`)),
  });
}

/**
 * What `rpc-gateway plugins` prints: each plugin's definitions built with a context whose backends do
 * not run (a plugin builds its definitions without calling them), and what the configuration serves.
 */
export function listPlugins(plugins: readonly LoadedPlugin[], config: AppConfig): JsonObject[] {
  const silent = { debug: () => undefined, log: () => undefined, warn: () => undefined, error: () => undefined };
  const entries: CatalogEntry[] = [];
  const gateway = new GatewayViewService(config, () => entries);
  for (const plugin of plugins) {
    const { manifest } = plugin;
    const context: PluginContext<unknown> = {
      name: manifest.name,
      config: plugin.config,
      node: idle<PluginInvoker>('node'),
      evm: idle<PluginInvoker>('evm'),
      events: idle<EventBus>('events'),
      logger: silent,
      metrics: pluginMetrics(undefined),
      gateway,
    };
    entries.push({ plugin, methods: pluginMethods(manifest, manifest.methods(context), { logger: silent, count: () => undefined }) });
  }
  return describePlugins(entries, config);
}

/** The listing as lines for a terminal. */
export function formatPluginListing(listing: readonly JsonObject[]): string {
  if (listing.length === 0) return 'no plugins loaded ([plugins] load is empty)\n';
  const lines: string[] = [];
  for (const plugin of listing) {
    lines.push(`${plugin.name} ${plugin.version} (${plugin.interface}; ${(plugin.namespaces as string[]).join(', ')}) from ${plugin.source}`);
    for (const method of plugin.methods as JsonObject[]) {
      lines.push(`  ${method.served ? 'served    ' : 'not served'}  ${method.name}${method.unsafe ? '  (unsafe)' : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
