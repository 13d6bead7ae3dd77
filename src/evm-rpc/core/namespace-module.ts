import type { ModuleMetadata, Provider, Type } from '@nestjs/common';
import type { MethodRegistry } from '../../rpc/method-registry';
import type { MethodTable } from './evm-method';
import { EvmRpcCoreModule } from './evm-rpc-core.module';
import { EVM_REGISTRY } from './evm-registry';

/** What a namespace module needs besides the core (the backend and config are global), and shares. */
export interface NamespaceDependencies {
  readonly imports?: ModuleMetadata['imports'];
  readonly providers?: Provider[];
  readonly exports?: ModuleMetadata['exports'];
}

/**
 * Metadata of a module of EVM methods: provides its method tables and registers them with the EVM
 * registry (the group of each method is its namespace; `name` only labels the registration).
 */
export function namespaceModule(name: string, tables: Type<MethodTable>[], deps: NamespaceDependencies = {}): ModuleMetadata {
  return {
    imports: [EvmRpcCoreModule, ...(deps.imports ?? [])],
    exports: deps.exports ?? [],
    providers: [
      ...(deps.providers ?? []),
      ...tables,
      {
        provide: `evm-rpc:${name}`,
        inject: [EVM_REGISTRY, ...tables],
        useFactory: (registry: MethodRegistry, ...instances: MethodTable[]) => {
          for (const table of instances) registry.registerAll(table.methods());
          return name;
        },
      },
    ],
  };
}
