import { Logger } from '@nestjs/common';
import type { JsonText } from '../rpc/call-context';
import { CodecError } from '../rpc/codec';
import { frame, type Dialect, type Limit, type RpcRequest } from '../rpc/dialect';
import { answeredIdOf, errorAnswer, type Message } from '../rpc/envelope';
import { HandlerFailure, MethodNotFoundError, RpcError, type KeyRefusal, type RateLimitedError } from '../rpc/errors';
import type { AnyMethod, MethodArgs } from '../rpc/method';
import { NULL_ID, parseEvmBody } from './evm-envelope';
import { BatchTooLargeError, EmptyBatchError, EvmUnauthorizedError, HandlerCrashedError, LimitExceededError, InvalidArgumentError, MethodNotAvailableError, MissingArgumentError, NonArrayArgsError, RequestTimedOutError, ResponseTooLargeError, TooManyArgumentsError } from './evm-errors';

/**
 * go-ethereum's positional arguments: `params` absent or null = no arguments; anything but an array
 * is `non-array args`; an optional (pointer) argument may be left out or null; a required one may
 * not be left out, and a null is decoded as Go decodes it.
 */
function decodeEvmParams(method: AnyMethod, params: unknown): MethodArgs {
  if (params === undefined || params === null) params = [];
  if (!Array.isArray(params)) throw new NonArrayArgsError();
  const values = params as unknown[];
  const args: MethodArgs = {};
  values.forEach((value, i) => {
    const param = method.params[i];
    if (!param) throw new TooManyArgumentsError(method.params.length);
    if (value === null && param.optional) return;
    try {
      args[param.name] = param.codec.decode(value);
    } catch (err) {
      if (err instanceof CodecError) throw new InvalidArgumentError(i, err.message);
      throw err;
    }
  });
  for (let i = values.length; i < method.params.length; i++) {
    if (!method.params[i].optional) throw new MissingArgumentError(i);
  }
  return args;
}

/**
 * go-ethereum's wire rules, as Evmos serves them: the first JSON value of a body is read, ids are
 * echoed as their raw text, `[]` is an error, a method unknown or unavailable names itself, and
 * subscriptions notify with `eth_subscription`.
 */
export class EvmDialect implements Dialect {
  readonly name = 'evm';
  readonly bodyErrorId = NULL_ID;
  readonly unwrapSingleAnswer = false;
  private readonly logger = new Logger('EvmRpc');

  parse(text: string) {
    return parseEvmBody(text);
  }

  decodeParams(method: AnyMethod, params: unknown): MethodArgs {
    return decodeEvmParams(method, params);
  }

  emptyBatch(): string {
    return errorAnswer(NULL_ID, new EmptyBatchError());
  }

  batchTooLarge(limit: Limit, messages: readonly Message[]): string {
    const firstCall = messages.find((m) => m.kind === 'call');
    return `[${errorAnswer(firstCall ? answeredIdOf(firstCall) : NULL_ID, new BatchTooLargeError(limit.key))}]`;
  }

  responseTooLarge(limit: Limit): RpcError {
    return new ResponseTooLargeError(limit.key);
  }

  timedOut(): RpcError {
    return new RequestTimedOutError();
  }

  rateLimited(limit: string, retryAfterMs: number): RateLimitedError {
    return new LimitExceededError(limit, retryAfterMs);
  }

  unauthorized(reason: KeyRefusal): RpcError {
    return new EvmUnauthorizedError(reason);
  }

  toRpcError(err: unknown, request: RpcRequest): RpcError {
    if (err instanceof MethodNotFoundError) return new MethodNotAvailableError(err.reason, request.method);
    if (err instanceof RpcError) return err;
    if (!(err instanceof HandlerFailure)) this.logger.error(`${request.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return new HandlerCrashedError();
  }

  notification(_requestIdText: string, subscription: string, result: JsonText): Buffer {
    return frame(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":${JSON.stringify(subscription)},"result":`, result, '}}');
  }

  notificationError(_requestIdText: string, subscription: string, error: RpcError): string {
    return JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, error } });
  }
}
