import type { AppConfig } from '../config/config.types';
import type { PluginEvents } from './plugin-events';
import { MethodRegistry } from '../rpc/method-registry';
import type { JsonObject } from '../rpc/json';
import type { AnyMethod } from '../rpc/method';
import type { PluginContext, PluginInvoker, PluginSubscriptions } from './api';
import { builtInNodeRoutes } from './built-in-methods';
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
 * Its methods are registered as start-up registers them, over the built-in routes, in load order: a
 * method start would refuse as a collision is listed as one, with who serves that name.
 */
export function listPlugins(plugins: readonly LoadedPlugin[], config: AppConfig): JsonObject[] {
  const silent = { debug: () => undefined, log: () => undefined, warn: () => undefined, error: () => undefined };
  const entries: CatalogEntry[] = [];
  const gateway = new GatewayViewService(config, () => entries);
  const registries = { node: builtInNodeRoutes(), evm: new MethodRegistry() };
  const collisions = new Map<AnyMethod, string>();
  for (const plugin of plugins) {
    const { manifest } = plugin;
    const context: PluginContext<unknown> = {
      name: manifest.name,
      config: plugin.config,
      node: idle<PluginInvoker>('node'),
      evm: idle<PluginInvoker>('evm'),
      events: idle<PluginEvents>('events'),
      subscriptions: idle<PluginSubscriptions>('subscriptions'),
      logger: silent,
      metrics: pluginMetrics(undefined),
      gateway,
    };
    const methods = pluginMethods(plugin, context, { logger: silent, count: () => undefined });
    const registry = registries[manifest.interface];
    for (const method of methods) {
      const owner = registry.ownerOf(method.name);
      if (owner === undefined) registry.register(method, `plugin ${manifest.name}`);
      else collisions.set(method, owner);
    }
    entries.push({ plugin, methods });
  }
  return describePlugins(entries, config, collisions);
}

/** Whether start would refuse the listed plugins: a method collides with a built-in one or another plugin's. */
export function listingCollides(listing: readonly JsonObject[]): boolean {
  return listing.some((plugin) => (plugin.methods as JsonObject[]).some((method) => method.collides_with !== undefined));
}

/** The listing as lines for a terminal. */
export function formatPluginListing(listing: readonly JsonObject[]): string {
  if (listing.length === 0) return 'no plugins loaded ([plugins] load is empty)\n';
  const lines: string[] = [];
  for (const plugin of listing) {
    lines.push(`${plugin.name} ${plugin.version} (${plugin.interface}; ${(plugin.namespaces as string[]).join(', ')}) from ${plugin.source}`);
    for (const method of plugin.methods as JsonObject[]) {
      const state = method.collides_with !== undefined ? 'collides  ' : method.served ? 'served    ' : 'not served';
      const notes = [
        method.collides_with !== undefined ? `collides with ${method.collides_with}: start refuses it` : '',
        method.unsafe ? 'unsafe' : '',
        method.websocket_only ? 'WebSocket only' : '',
      ].filter((note) => note !== '');
      lines.push(`  ${state}  ${method.name}${notes.length > 0 ? `  (${notes.join('; ')})` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
