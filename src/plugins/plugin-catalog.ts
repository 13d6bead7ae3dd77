import type { AppConfig } from '../config/config.types';
import { evmNamespaceServed } from '../evm-rpc/core/rpc-modules';
import { nodeCategoryServed } from '../node-rpc/categories';
import type { JsonObject } from '../rpc/json';
import type { AnyMethod } from '../rpc/method';
import type { LoadedPlugin } from './loader';

/** A loaded plugin and the methods it registered. */
export interface CatalogEntry {
  readonly plugin: LoadedPlugin;
  readonly methods: readonly AnyMethod[];
}

/** Whether a plugin method is served under `config`: its namespace enabled, and unsafe ones only with `[rpc] unsafe`. */
function served(entry: CatalogEntry, method: AnyMethod, config: AppConfig): boolean {
  const enabled =
    entry.plugin.manifest.interface === 'evm'
      ? config.jsonRpc.enable && evmNamespaceServed(method.group, config.jsonRpc.api)
      : nodeCategoryServed(method.group, config.gateway.plugins.node_api);
  return enabled && (!method.unsafe || config.rpc.unsafe);
}

/**
 * What `rpc-gateway plugins` prints and `gateway_plugins` answers: each plugin, its methods, whether each is
 * unsafe, WebSocket-only and served, and (the listing) who already serves a method start would refuse as a
 * collision (`collides_with`: a built-in category or `plugin <name>`).
 */
export function describePlugins(entries: readonly CatalogEntry[], config: AppConfig, collisions: ReadonlyMap<AnyMethod, string> = new Map()): JsonObject[] {
  return entries.map((entry) => {
    const { manifest, spec } = entry.plugin;
    return {
      name: manifest.name,
      version: manifest.version,
      interface: manifest.interface,
      namespaces: [...manifest.namespaces],
      source: spec,
      methods: entry.methods.map((method) => {
        const owner = collisions.get(method);
        const flags = { name: method.name, unsafe: method.unsafe === true, websocket_only: method.websocketOnly === true };
        return owner === undefined ? { ...flags, served: served(entry, method, config) } : { ...flags, served: false, collides_with: owner };
      }),
    };
  });
}
