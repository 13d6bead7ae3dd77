/**
 * Where the devnet's failures become answers: a class decorator for the embedded backends that has
 * each method report a DevnetError as the ApplicationError the RPC surfaces answer with.
 */
import { DevnetError } from '../../devnet/devnet-error';
import { ApplicationError } from '../../rpc/errors';

export function AnswersDevnetErrors(): ClassDecorator {
  return (target) => {
    const prototype = target.prototype as object;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
      if (name === 'constructor' || typeof descriptor?.value !== 'function') continue;
      const method = descriptor.value as (...args: unknown[]) => unknown;
      Object.defineProperty(prototype, name, {
        ...descriptor,
        value: function (this: unknown, ...args: unknown[]): unknown {
          let result: unknown;
          try {
            result = method.apply(this, args);
          } catch (err) {
            throw answerOf(err);
          }
          return result instanceof Promise ? result.catch((err: unknown) => Promise.reject(answerOf(err))) : result;
        },
      });
    }
  };
}

function answerOf(err: unknown): unknown {
  return err instanceof DevnetError ? new ApplicationError(err.message) : err;
}
