import { Inject, Injectable } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { defineMethod, type AnyMethod } from '../../rpc/method';
import type { MethodRegistry } from '../../rpc/method-registry';
import { METHOD_REGISTRY, type MethodSource } from '../../rpc/registration';

/** The `rpc` namespace go-ethereum always adds; served whatever `[json-rpc] api` says. */
export const RPC_NAMESPACE = 'rpc';

/** Whether a namespace is served: `rpc` always, any other when listed in `[json-rpc] api`. */
export function evmNamespaceServed(namespace: string, api: readonly string[]): boolean {
  return namespace === RPC_NAMESPACE || api.includes(namespace);
}

/** rpc_modules: every enabled namespace that has methods, plus `rpc`, each at version "1.0". */
@Injectable()
export class RpcModulesMethods implements MethodSource {
  constructor(
    @Inject(METHOD_REGISTRY.evm) private readonly registry: MethodRegistry,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): AnyMethod[] {
    return [defineMethod({ group: RPC_NAMESPACE, name: 'rpc_modules', params: [], idempotent: true, handler: () => this.modules() })];
  }

  private modules(): Record<string, string> {
    const served = this.registry.groups();
    const modules: Record<string, string> = {};
    for (const namespace of [...this.config.jsonRpc.api, RPC_NAMESPACE]) if (served.has(namespace)) modules[namespace] = '1.0';
    return modules;
  }
}
