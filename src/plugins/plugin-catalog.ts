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

/** What `rpc-gateway plugins` prints and `gateway_plugins` answers: each plugin, its methods, and what is served. */
export function describePlugins(entries: readonly CatalogEntry[], config: AppConfig): JsonObject[] {
  return entries.map((entry) => {
    const { manifest, spec } = entry.plugin;
    return {
      name: manifest.name,
      version: manifest.version,
      interface: manifest.interface,
      namespaces: [...manifest.namespaces],
      source: spec,
      methods: entry.methods.map((method) => ({ name: method.name, unsafe: method.unsafe === true, served: served(entry, method, config) })),
    };
  });
}
