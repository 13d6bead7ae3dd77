import type { CanActivate } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { CallContext } from './call-context';
import { MethodNotFoundError, RpcError } from './errors';
import type { MethodRegistry } from './method-registry';
import type { MethodArgs, MethodSpec } from './method-spec';

/** One parsed JSON-RPC (or URI) call, transport-neutral. */
export interface RpcRequest {
  readonly method: string;
  /** Positional array, named object, URI query map, or undefined when absent. */
  readonly params: unknown;
  readonly id: unknown;
}

/** What guards read: `context.switchToRpc().getData()` is this; `getContext()` is the CallContext. */
export interface GuardedCall {
  readonly spec: MethodSpec;
  readonly request: RpcRequest;
}

/** Turns raw params into the handler's named args; throws a typed RpcError on bad input. */
export interface ParamDecoder {
  decode(spec: MethodSpec, params: unknown, ctx: CallContext): MethodArgs;
}

/** Maps any failure to the error a client of this surface expects. */
export interface ErrorDialect {
  toRpcError(err: unknown, request: RpcRequest, ctx: CallContext): RpcError;
}

export type DispatchOutcome =
  | { readonly ok: true; readonly result: unknown; readonly spec: MethodSpec; readonly args: MethodArgs }
  | { readonly ok: false; readonly error: RpcError; readonly spec?: MethodSpec };

/** Sees every dispatched call (metrics, logs). */
export interface DispatchObserver {
  onDispatched(request: RpcRequest, ctx: CallContext, outcome: DispatchOutcome, startedAt: bigint): void;
}

/**
 * The one request path of a surface: registry lookup → guards → param decoding → handler.
 * Transports call it for single calls, batch members and WebSocket messages alike.
 */
export class Dispatcher {
  private readonly observers: DispatchObserver[] = [];
  private pending = 0;

  constructor(
    readonly registry: MethodRegistry,
    private readonly decoder: ParamDecoder,
    private readonly guards: readonly CanActivate[],
    private readonly dialect: ErrorDialect,
  ) {}

  addObserver(observer: DispatchObserver): void {
    this.observers.push(observer);
  }

  /** Calls being dispatched right now (the in-flight gauge; what a graceful shutdown drains). */
  get inFlight(): number {
    return this.pending;
  }

  async dispatch(request: RpcRequest, ctx: CallContext): Promise<DispatchOutcome> {
    const startedAt = process.hrtime.bigint();
    const spec = this.registry.get(request.method);
    let outcome: DispatchOutcome;
    this.pending++;
    try {
      if (!spec) throw new MethodNotFoundError('unknown');
      if (this.guards.length > 0) {
        const context = new ExecutionContextHost([{ spec, request } satisfies GuardedCall, ctx]);
        context.setType('rpc');
        for (const guard of this.guards) {
          // A synchronous verdict is not awaited: it costs no tick.
          const verdict = guard.canActivate(context);
          if (!(typeof verdict === 'boolean' ? verdict : await verdict)) throw new MethodNotFoundError('unknown');
        }
      }
      const args = this.decoder.decode(spec, request.params, ctx);
      const result = await spec.handler(args, ctx);
      outcome = { ok: true, result, spec, args };
    } catch (err) {
      outcome = { ok: false, error: this.dialect.toRpcError(err, request, ctx), spec };
    } finally {
      this.pending--;
    }
    for (const observer of this.observers) observer.onDispatched(request, ctx, outcome, startedAt);
    return outcome;
  }
}

/** Reads the call a guard is asked about: what `switchToRpc()`'s getData and getContext return. */
export function guardedCall(context: import('@nestjs/common').ExecutionContext): {
  call: GuardedCall;
  ctx: CallContext;
} {
  return { call: context.getArgByIndex<GuardedCall>(0), ctx: context.getArgByIndex<CallContext>(1) };
}

/** A successful answer that can never change, so HTTP caches may keep it. */
export function isImmutable(outcome: DispatchOutcome): boolean {
  return outcome.ok && outcome.spec.immutable !== undefined && outcome.spec.immutable(outcome.args, outcome.result);
}
