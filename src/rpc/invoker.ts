import type { CallContext } from './call-context';
import type { RpcRequest } from './dialect';
import { isComputed, type AnyMethod, type ArgsOfMethod, type MethodArgs, type MethodEnv, type ResultOf } from './method';

/** How the backend that runs (the embedded devnet, or the upstream pools) runs an interface's calls. */
export interface MethodBackend {
  /**
   * A call the backend answers: the devnet's handler for the definition, or the upstream pool through
   * the one forward path. `request` is the client's request when the arguments are exactly as it sent
   * them (an upstream then gets its params untouched); undefined for internal calls and for arguments
   * a prepare hook changed.
   */
  answer(method: AnyMethod, args: MethodArgs, ctx: CallContext, request: RpcRequest | undefined): unknown;
  /** A call the gateway computes with the definition's handler, its answer cached by its rule where the backend keeps a cache. */
  compute(method: AnyMethod, args: MethodArgs, ctx: CallContext): unknown;
}

/** The context of a call the gateway makes itself (a filter's poll, a subscription's backfill, a plugin). */
export const INTERNAL_CALL: CallContext = { transport: 'jsonrpc', remote: 'internal', requestId: undefined };

/**
 * The one way a call runs once it is admitted, for the engine (clients' calls) and for the gateway's
 * own callers (filters, subscriptions, the queue, plugins) alike: the definition's prepare hook, then
 * its handler when the gateway computes it, else the backend and the definition's finish hook.
 */
export class Invoker {
  constructor(
    private readonly backend: MethodBackend,
    private readonly env: MethodEnv,
  ) {}

  /** Runs a decoded call; `request` is the client's (absent for the gateway's own calls). */
  run(method: AnyMethod, args: MethodArgs, request: RpcRequest | undefined, ctx: CallContext): unknown {
    const ready = method.prepare ? (method.prepare(args as never, this.env) as MethodArgs) : args;
    if (isComputed(method)) return this.backend.compute(method, ready, ctx);
    const answer = this.backend.answer(method, ready, ctx, ready === args ? request : undefined);
    const finish = method.finish;
    return finish ? Promise.resolve(answer).then((result) => finish(result as never, ready as never, this.env)) : answer;
  }

  /** Calls `method` from inside the gateway: arguments and result typed by its definition. */
  async invoke<M extends AnyMethod>(method: M, args: ArgsOfMethod<M>, ctx: CallContext = INTERNAL_CALL): Promise<ResultOf<M>> {
    return (await this.run(method, args as MethodArgs, undefined, ctx)) as ResultOf<M>;
  }
}
