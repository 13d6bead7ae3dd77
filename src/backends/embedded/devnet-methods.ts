import { DevnetError } from '../../devnet/devnet-error';
import type { CallContext } from '../../rpc/call-context';
import { ApplicationError, MethodNotFoundError } from '../../rpc/errors';
import type { MethodBackend } from '../../rpc/invoker';
import { cacheRuleOf, heightOf, type AnyMethod, type MethodArgs } from '../../rpc/method';
import { callKey, type ParamsForm } from '../params-form';
import type { DevnetCache } from './devnet-cache';
import type { HandlerTable } from './handler-table';

/**
 * One interface's calls on the embedded devnet: a method the backend answers runs the devnet's
 * handler for its definition (or, for a plugin's method the devnet lacks natively, the plugin's
 * handler); one the gateway computes runs its own. Either way an idempotent call whose definition has a
 * cache rule goes through the devnet's response cache, keyed by the method and its params in the
 * interface's form (`form`). A DevnetError becomes the ApplicationError clients get; a method the devnet
 * does not serve answers as an unknown method does.
 */
export class DevnetMethods implements MethodBackend {
  constructor(
    private readonly table: HandlerTable,
    readonly cache: DevnetCache,
    private readonly form: ParamsForm,
  ) {}

  answer(method: AnyMethod, args: MethodArgs, ctx: CallContext): unknown {
    const handler = this.table.get(method.name) ?? (method.forward ? (method.handler as (args: MethodArgs, ctx: CallContext) => unknown) : undefined);
    if (handler === undefined) throw new MethodNotFoundError('unknown');
    return this.cached(method, args, () => answered(() => handler(args, ctx)));
  }

  compute(method: AnyMethod, args: MethodArgs, ctx: CallContext): unknown {
    const handler = method.handler as (args: MethodArgs, ctx: CallContext) => unknown;
    return this.cached(method, args, () => handler(args, ctx));
  }

  private cached(method: AnyMethod, args: MethodArgs, run: () => unknown): unknown {
    const rule = cacheRuleOf(method, args);
    if (rule.kind === 'never' || method.idempotent !== true) return run();
    return this.cache.read(callKey(this.form, method, args), rule, heightOf(method, args), run);
  }
}

async function answered(run: () => unknown): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof DevnetError ? new ApplicationError(err.message) : err;
  }
}
