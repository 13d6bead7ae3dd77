import { DevnetError } from '../../devnet/devnet-error';
import type { CallContext } from '../../rpc/call-context';
import { ApplicationError, MethodNotFoundError } from '../../rpc/errors';
import type { MethodBackend } from '../../rpc/invoker';
import type { AnyMethod, MethodArgs } from '../../rpc/method';
import type { HandlerTable } from './handler-table';

/**
 * One interface's calls on the embedded devnet: a method the backend answers runs the devnet's
 * handler for its definition (or, for a plugin's method the devnet lacks natively, the plugin's
 * handler); one the gateway computes runs its own. A DevnetError becomes the ApplicationError clients
 * get; a method the devnet does not serve answers as an unknown method does.
 */
export class DevnetMethods implements MethodBackend {
  constructor(private readonly table: HandlerTable) {}

  answer(method: AnyMethod, args: MethodArgs, ctx: CallContext): Promise<unknown> {
    const handler = this.table.get(method.name) ?? (method.forward ? (method.handler as (args: MethodArgs, ctx: CallContext) => unknown) : undefined);
    if (handler === undefined) throw new MethodNotFoundError('unknown');
    return answered(() => handler(args, ctx));
  }

  compute(method: AnyMethod, args: MethodArgs, ctx: CallContext): unknown {
    return (method.handler as (args: MethodArgs, ctx: CallContext) => unknown)(args, ctx);
  }
}

async function answered(run: () => unknown): Promise<unknown> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof DevnetError ? new ApplicationError(err.message) : err;
  }
}
