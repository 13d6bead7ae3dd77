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
  /** The group a method name belongs to, where the name says (EVM: `<namespace>_<name>`). */
  groupOfName?(method: string): string | undefined;
}

/**
 * The guards of every call, driven only by the method's metadata: the same check for single calls,
 * batch members, WebSocket messages, and plugin methods. A caller's API key may open unsafe methods
 * and groups the configuration keeps closed for everyone else. Throws the refusal.
 */
export function checkGuards(policy: GuardPolicy, method: AnyMethod, ctx: CallContext): void {
  if (method.unsafe && !policy.unsafeEnabled() && ctx.caller?.key?.unsafe !== true) throw new MethodNotFoundError('unsafe');
  if (!groupOpen(policy, method.group, ctx)) throw new MethodNotFoundError('namespace-disabled');
  if (method.websocketOnly && ctx.transport !== 'ws') throw policy.websocketOnlyRefusal(method);
}

/**
 * The refusal of a name the registry does not hold. A namespace nobody can open is not even loaded
 * (see access/opened-namespaces.ts), so its methods are refused as the namespace's, not as unknown.
 */
export function unknownMethod(policy: GuardPolicy, name: string, ctx: CallContext): MethodNotFoundError {
  const group = policy.groupOfName?.(name);
  return new MethodNotFoundError(group !== undefined && !groupOpen(policy, group, ctx) ? 'namespace-disabled' : 'unknown');
}

function groupOpen(policy: GuardPolicy, group: string, ctx: CallContext): boolean {
  return policy.groupEnabled(group) || ctx.caller?.key?.groups.has(group) === true;
}
