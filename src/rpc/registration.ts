import type { InjectionToken, ModuleMetadata, Provider, Type } from '@nestjs/common';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { Dialect, BatchLimits } from './dialect';
import { RpcEngine, type CallGate } from './engine';
import { Invoker, type MethodBackend } from './invoker';
import type { GuardPolicy } from './guards';
import type { AnyMethod } from './method';
import type { MethodRegistry } from './method-registry';

/** The two public interfaces of a Cosmos-EVM node. */
export type RpcInterface = 'node' | 'evm';

/** One injection token per interface. */
function perInterface(name: string): Readonly<Record<RpcInterface, symbol>> {
  return { node: Symbol(`NODE_${name}`), evm: Symbol(`EVM_${name}`) };
}

/** Injection tokens of each interface's method registry. */
export const METHOD_REGISTRY = perInterface('METHOD_REGISTRY');
/** Injection tokens of each interface's engine (provided by the interface's core module). */
export const RPC_ENGINE = perInterface('RPC_ENGINE');
/** Injection tokens of each interface's MethodBackend (provided by the backend that runs). */
export const METHOD_BACKEND = perInterface('METHOD_BACKEND');
/** Injection tokens of each interface's Invoker: how every call runs, and `invoke` for the gateway's own calls. */
export const INVOKER = perInterface('INVOKER');

/** The provider of an interface's Invoker, over the backend's MethodBackend. */
export function invokerProvider(rpc: RpcInterface): Provider {
  return {
    provide: INVOKER[rpc],
    inject: [METHOD_BACKEND[rpc], GatewayConfigService],
    useFactory: (backend: MethodBackend, config: GatewayConfigService) => new Invoker(backend, { config }),
  };
}

/**
 * Optional: what admits every call of both interfaces before it runs (the access module's rate
 * limits); absent or null, every call is admitted.
 */
export const RPC_GATE = Symbol('RPC_GATE');

/**
 * What makes an interface's engine besides its registry: its wire rules, its guard policy (unsafe
 * methods follow `[rpc] unsafe` on both interfaces), its batch limits.
 */
export interface EngineParts {
  readonly dialect: Dialect;
  readonly policy: Omit<GuardPolicy, 'unsafeEnabled'>;
  readonly limits: () => BatchLimits;
}

/** The provider of an interface's engine, over its registry and the Invoker. */
export function engineProvider(rpc: RpcInterface, parts: (config: GatewayConfigService) => EngineParts): Provider {
  return {
    provide: RPC_ENGINE[rpc],
    inject: [METHOD_REGISTRY[rpc], GatewayConfigService, INVOKER[rpc], { token: RPC_GATE, optional: true }],
    useFactory: (registry: MethodRegistry, config: GatewayConfigService, invoker: Invoker, gate?: CallGate | null) => {
      const { dialect, policy, limits } = parts(config);
      const engine = new RpcEngine(dialect, registry, { ...policy, unsafeEnabled: () => config.rpc.unsafe }, limits);
      engine.useExecutor((method, args, request, ctx) => invoker.run(method, args, request, ctx));
      if (gate) engine.useGate(gate);
      return engine;
    },
  };
}

/** A provider that contributes method definitions (a category or namespace module's part, a plugin). */
export interface MethodSource {
  methods(): readonly AnyMethod[];
}

/** Method definitions made by a function of injected providers (the backend, config, …). */
export interface MethodFactory {
  readonly inject: InjectionToken[];
  readonly methods: (...deps: never[]) => readonly AnyMethod[];
}

/** What a methods module needs besides the global ones (config, backends, events), and shares. */
export interface MethodsModuleDependencies {
  readonly imports?: ModuleMetadata['imports'];
  readonly providers?: Provider[];
  readonly exports?: ModuleMetadata['exports'];
}

/** Where a methods module's definitions come from: a class, a factory, or the definitions themselves. */
export type MethodsSource = Type<MethodSource> | MethodFactory | readonly AnyMethod[];

/**
 * The one registration helper, for both interfaces and for plugins: the metadata of a NestJS module
 * that provides its method sources and registers their definitions with the interface's registry.
 * `owner` names the module or plugin in a clash message.
 */
export function methodsModule(rpc: RpcInterface, owner: string, sources: readonly MethodsSource[], deps: MethodsModuleDependencies = {}): ModuleMetadata {
  const classes = sources.filter((s): s is Type<MethodSource> => typeof s === 'function');
  const factories = sources.filter((s): s is MethodFactory => typeof s !== 'function' && !Array.isArray(s));
  const lists = sources.filter((s): s is readonly AnyMethod[] => Array.isArray(s));
  return {
    imports: deps.imports ?? [],
    exports: deps.exports ?? [],
    providers: [
      ...(deps.providers ?? []),
      ...classes,
      {
        provide: `${rpc}-methods:${owner}`,
        inject: [METHOD_REGISTRY[rpc], ...classes, ...factories.flatMap((f) => f.inject)],
        useFactory: (registry: MethodRegistry, ...injected: unknown[]) => {
          for (const list of lists) registry.registerAll(list, owner);
          for (const source of injected.splice(0, classes.length) as MethodSource[]) registry.registerAll(source.methods(), owner);
          for (const factory of factories) registry.registerAll(factory.methods(...(injected.splice(0, factory.inject.length) as never[])), owner);
          return owner;
        },
      },
    ],
  };
}
