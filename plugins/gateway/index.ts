/**
 * The operator's namespace on the EVM interface: `gateway_*` reads of the gateway itself (its upstream
 * pools, its response cache, its broadcast queue, its version, its effective config and its plugins).
 * They are answered by this gateway, never by an upstream, are never cached, and are all unsafe: served
 * only where the operator opens them with `[rpc] unsafe = true` AND lists `gateway` in `[json-rpc] api`.
 *
 * The JSON shapes (lower_snake_case, as the gateway's other operator output) are in `shapes.ts` and
 * docs/plugins.md, "Shipped plugins".
 */
import { definePlugin, defineMethod, NEVER, PLUGIN_API_VERSION, type AnyMethod, type JsonObject } from 'rpc-gateway/plugin-api';
import { cacheOf, queueOf, upstreamsOfPools, type PoolCacheJson, type PoolUpstreamsJson, type QueueJson } from './shapes';

export default definePlugin({
  name: 'gateway',
  version: '1.0.0',
  apiVersion: 2,
  interface: 'evm',
  namespaces: ['gateway'],
  methods(ctx): readonly AnyMethod[] {
    const view = ctx.gateway;
    const operator = { group: 'gateway', params: [], unsafe: true, idempotent: true, cache: () => NEVER } as const;
    return [
      defineMethod({ ...operator, name: 'gateway_upstreams', handler: (): PoolUpstreamsJson[] => upstreamsOfPools(view.pools()) }),
      defineMethod({ ...operator, name: 'gateway_cache', handler: (): PoolCacheJson[] => cacheOf(view.caches()) }),
      defineMethod({
        ...operator,
        name: 'gateway_version',
        handler: (): JsonObject => ({ version: view.version, backend: view.backend, plugin_api_version: PLUGIN_API_VERSION }),
      }),
      defineMethod({ ...operator, name: 'gateway_config', handler: (): JsonObject => view.config() }),
      defineMethod({ ...operator, name: 'gateway_plugins', handler: (): JsonObject[] => view.plugins() }),
      defineMethod({ ...operator, name: 'gateway_queue', handler: async (): Promise<QueueJson> => queueOf(await view.queue()) }),
    ];
  },
});
