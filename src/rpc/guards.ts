import type { CallContext } from './call-context';
import { MethodNotFoundError, type RpcError } from './errors';
import type { AnyMethod } from './method';

/** What an interface decides about serving a method; read on every call, so config reloads apply. */
export interface GuardPolicy {
  /** `[rpc] unsafe`: unsafe methods exist only when true. */
  unsafeEnabled(): boolean;
  /** Whether the method's group (EVM namespace, node category) is enabled. */
  groupEnabled(group: string): boolean;
  /** The error a WebSocket-only method answers over HTTP (each interface has its own). */
  websocketOnlyRefusal(method: AnyMethod): RpcError;
}

/**
 * The guards of every call, driven only by the method's metadata: the same check for single calls,
 * batch members, WebSocket messages, and plugin methods. A caller's API key may open unsafe methods
 * and groups the configuration keeps closed for everyone else. Throws the refusal.
 */
export function checkGuards(policy: GuardPolicy, method: AnyMethod, ctx: CallContext): void {
  const key = ctx.caller?.key;
  if (method.unsafe && !policy.unsafeEnabled() && key?.unsafe !== true) throw new MethodNotFoundError('unsafe');
  if (!policy.groupEnabled(method.group) && key?.groups.has(method.group) !== true) throw new MethodNotFoundError('namespace-disabled');
  if (method.websocketOnly && ctx.transport !== 'ws') throw policy.websocketOnlyRefusal(method);
}
