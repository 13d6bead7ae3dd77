import { ConfigError } from '../config/config-error';
import { HandlerFailure, RpcError } from '../rpc/errors';
import type { CallContext } from '../rpc/call-context';
import type { AnyMethod } from '../rpc/method';
import type { PluginContext, PluginLogger, PluginManifest } from './api';
import type { LoadedPlugin } from './loader';

const NODE_ROUTE = /^[a-z][a-z0-9_]*$/;

/** Where a plugin's unexpected failures go: its log (once per failure, with its name) and a counter. */
export interface FailureSink {
  readonly logger: PluginLogger;
  count(): void;
}

function invalid(manifest: PluginManifest<unknown>, what: string): never {
  throw new ConfigError(`plugin ${manifest.name}: ${what}`);
}

/** Checks one definition a plugin's `methods()` returned: a name of its own namespace, params, a handler if any. */
function check(manifest: PluginManifest<unknown>, method: unknown): AnyMethod {
  if (typeof method !== 'object' || method === null) invalid(manifest, `methods() returned ${JSON.stringify(method)}, expected method definitions (defineMethod)`);
  const m = method as Partial<AnyMethod>;
  if (typeof m.name !== 'string') invalid(manifest, 'a method has no name');
  if (m.handler !== undefined && typeof m.handler !== 'function') invalid(manifest, `method ${m.name} has a handler that is not a function`);
  if (!Array.isArray(m.params)) invalid(manifest, `method ${m.name} has no params list`);
  if (typeof m.group !== 'string' || !manifest.namespaces.includes(m.group)) {
    invalid(manifest, `method ${m.name} is in ${JSON.stringify(m.group)}, expected one of its namespaces (${manifest.namespaces.join(', ')})`);
  }
  if (manifest.interface === 'evm' && !m.name.startsWith(`${m.group}_`)) invalid(manifest, `method ${m.name} expected to be named ${m.group}_<name>`);
  if (manifest.interface === 'node' && !NODE_ROUTE.test(m.name)) invalid(manifest, `route ${m.name} expected to match ${NODE_ROUTE}`);
  return m as AnyMethod;
}

/**
 * A plugin method whose unexpected failure (anything but an RpcError it meant to answer) is logged once
 * with the plugin's name and counted, and answers only its caller with the interface's internal error.
 */
function isolated(method: AnyMethod, sink: FailureSink): AnyMethod {
  const failed = (err: unknown): never => {
    if (err instanceof RpcError) throw err;
    sink.logger.error(`${method.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    sink.count();
    throw new HandlerFailure(`plugin method ${method.name} failed`);
  };
  const handler = method.handler as ((args: unknown, ctx: unknown) => unknown) | undefined;
  if (handler === undefined) return method;
  return {
    ...method,
    handler: (args: never, ctx: CallContext) => {
      try {
        const result = handler(args, ctx);
        return result instanceof Promise ? result.catch(failed) : result;
      } catch (err) {
        return failed(err);
      }
    },
  } as AnyMethod;
}

/**
 * A plugin's definitions, built by its `methods(context)` (a throw is one ConfigError line naming the plugin, its
 * file and the cause), checked and isolated, ready for the registry.
 */
export function pluginMethods<C>(plugin: LoadedPlugin, context: PluginContext<C>, sink: FailureSink): AnyMethod[] {
  const manifest = plugin.manifest;
  let methods: unknown;
  try {
    methods = manifest.methods(context as PluginContext<unknown>);
  } catch (err) {
    const cause = err instanceof Error ? err.message : String(err);
    invalid(manifest, `methods() threw: ${cause.split('\n')[0]} (${plugin.file})`);
  }
  if (!Array.isArray(methods)) invalid(manifest, 'methods() expected to return an array of method definitions');
  return methods.map((method: unknown) => isolated(check(manifest, method), sink));
}
