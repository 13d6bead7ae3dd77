/**
 * Upstream mode's one way to run a call, for clients' calls and the gateway's own alike: the method's
 * definition is the plan. A call the backend answers goes to the pool (routed by the height the
 * definition names, retried and hedged when idempotent, cached by its rule), cut into parts by its
 * split hook where it has one; unless a hook of the definition reads it (finish, which the Invoker runs,
 * or revealsHeight), the upstream's bytes reach the client untouched and unparsed (UnreadJson). A call the gateway computes
 * runs its handler, its answer cached by the same rule. An answer that shows a transaction in a block
 * moves the client's next reads to that block or later.
 */
import type { CallContext } from '../../rpc/call-context';
import type { RpcRequest } from '../../rpc/dialect';
import type { MethodBackend } from '../../rpc/invoker';
import type { Json } from '../../rpc/json';
import { readResult, type WireResult } from '../../rpc/result-json';
import { callKey, type ParamsForm } from '../params-form';
import { cacheRuleOf, heightOf, type AnyMethod, type MethodArgs, type MethodEnv, type SplitPool } from '../../rpc/method';
import type { UpstreamPool } from './upstream-pool';
import type { CallExpiry } from '../../rpc/within-deadline';
import { UpstreamFailure } from './upstream-errors';

export class ForwardPath implements MethodBackend {
  private readonly splitPool: SplitPool;

  constructor(
    readonly pool: UpstreamPool,
    private readonly form: ParamsForm,
    private readonly env: MethodEnv,
  ) {
    this.splitPool = {
      get head() {
        return pool.head;
      },
      freshHead: async () => {
        await pool.checkHealth();
        return pool.head;
      },
    };
  }

  answer(method: AnyMethod, args: MethodArgs, ctx: CallContext, request: RpcRequest | undefined): unknown {
    // The client's params go as sent, unless they came from a URI query (named strings) or a hook changed them.
    const params = () => (request !== undefined && ctx.transport !== 'uri' ? ((request.params ?? this.form.none) as Json) : this.form.encode(method, args));
    if (method.split) return this.split(method, args, params, ctx.expiry);
    // A client's answer that no hook reads goes back as the node's bytes, never parsed.
    const unread = request !== undefined && method.finish === undefined && method.revealsHeight === undefined;
    return this.send(method, args, params(), ctx.expiry, unread);
  }

  async compute(method: AnyMethod, args: MethodArgs, ctx: CallContext): Promise<unknown> {
    const handler = method.handler as (args: MethodArgs, ctx: CallContext) => unknown;
    const rule = cacheRuleOf(method, args);
    const result =
      rule.kind === 'never' || method.idempotent !== true
        ? await handler(args, ctx)
        : readResult(await this.pool.remember(callKey(this.form, method, args), rule, heightOf(method, args), async () => (await handler(args, ctx)) as Json));
    await this.sawHeight(method, result as Json);
    return result;
  }

  /**
   * The pool's answer: as it is when the memory cache has it, else a promise. A read is aborted at the
   * call's deadline (`expiry`); a write handed to a node is not taken back, so it runs to its answer.
   */
  private send(method: AnyMethod, args: MethodArgs, params: Json, expiry: CallExpiry | undefined, unread = false): WireResult | Promise<WireResult> {
    const idempotent = method.idempotent === true;
    const result = this.pool.request({
      method: method.name,
      params,
      needs: { height: heightOf(method, args) },
      idempotent,
      cache: cacheRuleOf(method, args),
      timeoutMs: method.timeoutMs?.(this.env),
      expiry: idempotent ? expiry : undefined,
      unread,
    });
    return method.revealsHeight ? Promise.resolve(result).then((answer) => this.sawHeight(method, answer as Json).then(() => answer)) : result;
  }

  /** The parts a few at a time over the pool (least busy first), joined in order. */
  private async split(method: AnyMethod, args: MethodArgs, whole: () => Json, expiry: CallExpiry | undefined): Promise<unknown> {
    const rule = method.split!;
    const parts = (await rule.parts(args as never, this.splitPool, this.env)) as MethodArgs[] | undefined;
    if (parts === undefined) return this.send(method, args, whole(), expiry);
    const results: unknown[] = new Array(parts.length);
    const width = Math.max(2, Math.min(8, 2 * this.pool.upstreams.filter((u) => u.healthy).length));
    let next = 0;
    const worker = async () => {
      while (next < parts.length) {
        const i = next++;
        // Past the deadline the client has had its answer: no further part is sent.
        if (expiry?.expired) throw new UpstreamFailure('aborted', 'aborted');
        results[i] = await this.send(method, parts[i], this.form.encode(method, parts[i]), expiry);
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, parts.length) }, worker));
    return rule.join(results as never[], args as never, this.env);
  }

  private async sawHeight(method: AnyMethod, result: Json): Promise<void> {
    const shown = method.revealsHeight?.(result);
    if (shown !== undefined) await this.pool.sawHeight(shown);
  }
}
