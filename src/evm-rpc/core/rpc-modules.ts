import type { JsonRpcConfig } from '../../config/config.types';
import type { MethodRegistry } from '../../rpc/method-registry';
import type { MethodSpec } from '../../rpc/method-spec';

/** The `rpc` namespace go-ethereum always adds; served whatever `[json-rpc] api` says. */
export const RPC_NAMESPACE = 'rpc';

/** rpc_modules: every enabled namespace that has methods, plus `rpc`, each at version "1.0". */
export function rpcModulesMethod(registry: MethodRegistry, config: () => JsonRpcConfig): MethodSpec {
  return {
    name: 'rpc_modules',
    group: RPC_NAMESPACE,
    params: [],
    idempotent: true,
    handler: () => {
      const served = new Set(registry.list().map((spec) => spec.group));
      const modules: Record<string, string> = {};
      for (const namespace of [...config().api, RPC_NAMESPACE]) if (served.has(namespace)) modules[namespace] = '1.0';
      return modules;
    },
  };
}
