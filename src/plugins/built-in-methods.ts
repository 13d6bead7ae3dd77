import type { Type } from '@nestjs/common';
import { NodeRpcModule } from '../node-rpc/node-rpc.module';
import { MethodRegistry } from '../rpc/method-registry';

/** A methods module's registering provider (see methodsModule in src/rpc/registration.ts). */
interface RegisteringProvider {
  readonly provide: string;
  readonly inject: readonly unknown[];
  readonly useFactory: (registry: MethodRegistry, ...deps: unknown[]) => unknown;
}

/** A dependency that is never called: building definitions does not call the backends. */
const idle: object = new Proxy(
  {},
  {
    get: (_target, key) => (key === 'then' ? undefined : () => Promise.reject(new Error(`${String(key)}: nothing runs while plugins are listed`))),
  },
);

function isRegistering(provider: unknown): provider is RegisteringProvider {
  const p = provider as Partial<RegisteringProvider> | null;
  return typeof p === 'object' && p !== null && typeof p.provide === 'string' && p.provide.startsWith('node-methods:') && typeof p.useFactory === 'function';
}

/**
 * The node RPC's built-in routes, registered with their owners exactly as start-up registers them (each category
 * module's own registering provider, its method sources built over dependencies that do not run), so that
 * `rpc-gateway plugins` finds the clashes `start` refuses. EVM plugins cannot clash with a built-in method: their
 * names carry their own namespace, which the loader keeps apart from the built-in ones.
 */
export function builtInNodeRoutes(): MethodRegistry {
  const registry = new MethodRegistry();
  const modules = (Reflect.getMetadata('imports', NodeRpcModule) ?? []) as Type[];
  for (const module of modules) {
    const providers = (Reflect.getMetadata('providers', module) ?? []) as unknown[];
    for (const provider of providers.filter(isRegistering)) {
      const deps = provider.inject.slice(1).map((token) => {
        const isSource = typeof token === 'function' && (token.prototype as { methods?: unknown } | undefined)?.methods !== undefined;
        return isSource ? new (token as new (...args: unknown[]) => unknown)(idle, idle, idle, idle, idle, idle) : idle;
      });
      provider.useFactory(registry, ...deps);
    }
  }
  return registry;
}
