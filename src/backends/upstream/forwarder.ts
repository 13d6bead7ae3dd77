import type { Executor } from '../../rpc/engine';
import type { Json } from '../../rpc/json';
import { cacheRuleOf, heightOf, type AnyMethod, type MethodArgs } from '../../rpc/method';
import type { UpstreamPool } from './upstream-pool';

/** Decoded args in their JSON-RPC form, by name (left-out ones stay out): a URI call, or a backend call. */
export function namedParams(method: AnyMethod, args: MethodArgs): Json {
  const params: Record<string, Json> = {};
  for (const p of method.params) {
    const value = args[p.name];
    if (value !== undefined && p.codec.encode) params[p.name] = p.codec.encode(value as never);
  }
  return params;
}

/**
 * One call of `method` to the pool with `params` as they go on the wire: routed by the height the
 * definition names, retried and hedged when it is idempotent, cached by its rule; an answer that shows
 * a transaction in a block moves the client's next reads to that block or later.
 */
export async function forward(pool: UpstreamPool, method: AnyMethod, args: MethodArgs, params: Json, timeoutMs?: number): Promise<Json> {
  const result = await pool.request({
    method: method.name,
    params,
    needs: { height: heightOf(method, args) },
    idempotent: method.idempotent === true,
    cache: cacheRuleOf(method, args),
    timeoutMs,
  });
  const shown = method.revealsHeight?.(result);
  if (shown !== undefined) await pool.sawHeight(shown);
  return result;
}

/**
 * How calls run in upstream mode: a method marked `forward` goes to the pool as the client sent it
 * (its params untouched, its answer's bytes passed through); other methods run their handler, whose
 * answer moves the client's next reads as a forwarded one does when it shows a tx in a block (a
 * broadcast_tx_commit that the broadcast queue saw included).
 * `noParams` is what an absent params member becomes (`{}` for the node RPC, `[]` for the EVM).
 */
export function forwardingExecutor(pool: UpstreamPool, noParams: Json): Executor {
  return (method, args, request, ctx) => {
    if (!method.forward) return method.revealsHeight ? handledShowingHeight(pool, method, args, ctx) : method.handler(args as never, ctx);
    return forward(pool, method, args, ctx.transport === 'uri' ? namedParams(method, args) : ((request.params ?? noParams) as Json));
  };
}

async function handledShowingHeight(pool: UpstreamPool, method: AnyMethod, args: MethodArgs, ctx: Parameters<Executor>[3]): Promise<unknown> {
  const result = await method.handler(args as never, ctx);
  const shown = method.revealsHeight?.(result as Json);
  if (shown !== undefined) await pool.sawHeight(shown);
  return result;
}
