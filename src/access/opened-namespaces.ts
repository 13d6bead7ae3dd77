import type { AppConfig } from '../config/config.types';
import type { FileKeys } from './api-keys';

/**
 * Whether an EVM namespace can ever be served under this configuration, for choosing the app's modules
 * when it is assembled: when `[json-rpc] api` lists it or an API key grants it. A namespace closed to
 * the public is still loaded for the key that opens it (the guards decide per call). Keys looked up in
 * Redis (`keys_redis`) can be added while the gateway runs, so with them every namespace is loaded.
 */
export type OpenedNamespace = (namespace: string) => boolean;

export function openedNamespaces(config: AppConfig, keys: FileKeys | null): OpenedNamespace {
  if (config.gateway.access.keys_redis) return () => true;
  const granted = keys?.grants().groups;
  const api = new Set(config.jsonRpc.api);
  return (namespace) => api.has(namespace) || granted?.has(namespace) === true;
}
