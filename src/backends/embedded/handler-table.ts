import type { CallContext } from '../../rpc/call-context';
import type { AnyMethod, ArgsOfMethod, MethodArgs, ResultOf } from '../../rpc/method';

type Handler = (args: MethodArgs, ctx: CallContext) => unknown;

/** The devnet's answers, keyed by method definition: arguments and result typed by the definition. */
export class HandlerTable {
  private readonly handlers = new Map<string, Handler>();

  on<M extends AnyMethod>(method: M, handler: (args: ArgsOfMethod<M>, ctx: CallContext) => ResultOf<M> | Promise<ResultOf<M>>): this {
    this.handlers.set(method.name, handler as Handler);
    return this;
  }

  get(name: string): Handler | undefined {
    return this.handlers.get(name);
  }
}
