import type { ModuleMetadata, Provider, Type } from '@nestjs/common';
import type { AnyMethod } from './method';
import type { MethodRegistry } from './method-registry';

/** The two public interfaces of a Cosmos-EVM node. */
export type RpcInterface = 'node' | 'evm';

/** Injection tokens of each interface's method registry. */
export const METHOD_REGISTRY: Readonly<Record<RpcInterface, symbol>> = {
  node: Symbol('NODE_METHOD_REGISTRY'),
  evm: Symbol('EVM_METHOD_REGISTRY'),
};

/** Injection tokens of each interface's engine (provided by the interface's core module). */
export const RPC_ENGINE: Readonly<Record<RpcInterface, symbol>> = {
  node: Symbol('NODE_RPC_ENGINE'),
  evm: Symbol('EVM_RPC_ENGINE'),
};

/** A provider that contributes method definitions (a category or namespace module's part, a plugin). */
export interface MethodSource {
  methods(): readonly AnyMethod[];
}

/** What a methods module needs besides the global ones (config, backends, events), and shares. */
export interface MethodsModuleDependencies {
  readonly imports?: ModuleMetadata['imports'];
  readonly providers?: Provider[];
  readonly exports?: ModuleMetadata['exports'];
}

/**
 * The one registration helper, for both interfaces and for plugins: the metadata of a NestJS module
 * that provides its method sources and registers their definitions with the interface's registry.
 * `owner` names the module or plugin in a clash message.
 */
export function methodsModule(rpc: RpcInterface, owner: string, sources: Type<MethodSource>[], deps: MethodsModuleDependencies = {}): ModuleMetadata {
  return {
    imports: deps.imports ?? [],
    exports: deps.exports ?? [],
    providers: [
      ...(deps.providers ?? []),
      ...sources,
      {
        provide: `${rpc}-methods:${owner}`,
        inject: [METHOD_REGISTRY[rpc], ...sources],
        useFactory: (registry: MethodRegistry, ...instances: MethodSource[]) => {
          for (const source of instances) registry.registerAll(source.methods(), owner);
          return owner;
        },
      },
    ],
  };
}
