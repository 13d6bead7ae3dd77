import { performance } from 'node:perf_hooks';
import { ConfigError } from '../config/config-error';
import { ApplicationError, HandlerFailure, RpcError } from '../rpc/errors';
import type { CallContext } from '../rpc/call-context';
import type { AnyMethod } from '../rpc/method';
import type { PluginContext, PluginLogger, PluginManifest } from './api';
import type { LoadedPlugin } from './loader';

const NODE_ROUTE = /^[a-z][a-z0-9_]*$/;

/** A synchronous stretch of a handler this long (ms) blocks the event loop: logged once per method, counted. */
export const BLOCKING_THRESHOLD_MS = 100;

/**
 * Where a plugin's unexpected failures go: its log (once per failure, with its name) and a counter; and
 * its handlers that block the event loop: its log (once per method) and a counter by method; with
 * `quarantineMs` (`[plugins] blocking_quarantine`), a call that held the loop that long takes its method
 * out of service until restart (logged, and `quarantined`).
 */
export interface FailureSink {
  readonly logger: PluginLogger;
  count(): void;
  blocked?(method: string): void;
  readonly quarantineMs?: number;
  quarantined?(method: string): void;
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
 * The synchronous stretch of each call (the handler up to its first await, or all of it) is timed: one of
 * BLOCKING_THRESHOLD_MS or more held the event loop, every other call waited; it is counted, and logged
 * the first time for the method. One of the sink's `quarantineMs` or more takes the method out of service:
 * its later calls answer an ApplicationError saying so.
 */
function isolated(method: AnyMethod, sink: FailureSink): AnyMethod {
  let reported = false;
  let outOfService: ApplicationError | undefined;
  const quarantineMs = sink.quarantineMs ?? 0;
  const held = (started: number): void => {
    const ms = performance.now() - started;
    if (quarantineMs > 0 && ms >= quarantineMs && outOfService === undefined) {
      const why = `it held the event loop for ${Math.round(ms)} ms ([plugins] blocking_quarantine = ${quarantineMs} ms)`;
      outOfService = new ApplicationError(`plugin method ${method.name} is out of service until the gateway restarts: ${why}`);
      sink.logger.error(`${method.name} taken out of service until restart: ${why}`);
      sink.quarantined?.(method.name);
    }
    if (ms < BLOCKING_THRESHOLD_MS) return;
    sink.blocked?.(method.name);
    if (reported) return;
    reported = true;
    sink.logger.warn(
      `${method.name} blocked the event loop for ${Math.round(ms)} ms (over ${BLOCKING_THRESHOLD_MS} ms in one synchronous stretch; every other call waited): move its work off the loop. Logged once; counted in plugin_event_loop_blocks_total`,
    );
  };
  // After the call's deadline its client has its answer: what the aborted work throws then is expected.
  const failed = (err: unknown, ctx: CallContext | undefined): never => {
    if (err instanceof RpcError || ctx?.signal?.aborted) throw err;
    sink.logger.error(`${method.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    sink.count();
    throw new HandlerFailure(`plugin method ${method.name} failed`);
  };
  const handler = method.handler as ((args: unknown, ctx: unknown) => unknown) | undefined;
  if (handler === undefined) return method;
  return {
    ...method,
    handler: (args: never, ctx: CallContext) => {
      if (outOfService !== undefined) throw outOfService;
      const started = performance.now();
      try {
        const result = handler(args, ctx);
        return result instanceof Promise ? result.catch((err: unknown) => failed(err, ctx)) : result;
      } catch (err) {
        return failed(err, ctx);
      } finally {
        held(started);
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
