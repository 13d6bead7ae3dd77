/**
 * The EVM RPC's error catalogue: the failures of go-ethereum's JSON-RPC server, with the codes and
 * messages ethers and viem parse. Handlers and backends throw ApplicationError (a failed operation,
 * -32000 unless e.g. 3 for a revert) or these.
 */
import { InternalError, InvalidParamsError, InvalidRequestError, LimitError, MethodNotFoundError, ParseError, RateLimitedError, RefusalError, type KeyRefusal, type NotFoundReason } from '../rpc/errors';

export class EvmParseError extends ParseError {
  constructor() {
    super('parse error');
  }
}

/** A member that is not a request (no method, an object id). */
export class InvalidMessageError extends InvalidRequestError {
  constructor() {
    super('invalid request');
  }
}

export class EmptyBatchError extends InvalidRequestError {
  constructor() {
    super('empty batch');
  }
}

export class BatchTooLargeError extends LimitError {
  constructor(limit: string) {
    super(limit, 'batch too large', -32600);
  }
}

export class ResponseTooLargeError extends LimitError {
  constructor(limit: string) {
    super(limit, 'response too large', -32003);
  }
}

export class RequestTimedOutError extends LimitError {
  constructor() {
    super('http-timeout', 'request timed out', -32002);
  }
}

/** EIP-1474's -32005 "limit exceeded": the rule and the seconds to wait as data (HTTP 429 on a single call). */
export class LimitExceededError extends RateLimitedError {
  constructor(limit: string, retryAfterMs: number) {
    super(limit, retryAfterMs, 'limit exceeded', -32005, { limit, retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)) });
  }
}

const KEY_REFUSALS: Record<KeyRefusal, string> = {
  missing: 'missing API key',
  unknown: 'invalid API key',
  unavailable: 'API keys cannot be checked right now',
};

/** A request without a known API key where keys are required (HTTP 401; 503 when keys cannot be checked). */
export class EvmUnauthorizedError extends InvalidRequestError {
  constructor(reason: KeyRefusal) {
    super(KEY_REFUSALS[reason]);
  }
}

/** Unknown, in a disabled namespace, or unsafe: go-ethereum names the method. */
export class MethodNotAvailableError extends MethodNotFoundError {
  constructor(reason: NotFoundReason, method: string) {
    super(reason, `the method ${method} does not exist/is not available`);
  }
}

export class HandlerCrashedError extends InternalError {
  constructor() {
    super('method handler crashed');
  }
}

/** A subscription method called where nothing can be pushed (HTTP). */
export class NotificationsNotSupportedError extends RefusalError {
  constructor() {
    super('websocket-only', -32000, 'notifications not supported');
  }
}

export class NonArrayArgsError extends InvalidParamsError {
  constructor() {
    super('non-array args');
  }
}

export class TooManyArgumentsError extends InvalidParamsError {
  constructor(max: number) {
    super(`too many arguments, want at most ${max}`);
  }
}

export class MissingArgumentError extends InvalidParamsError {
  constructor(index: number) {
    super(`missing value for required argument ${index}`);
  }
}

export class InvalidArgumentError extends InvalidParamsError {
  constructor(index: number, detail: string) {
    super(`invalid argument ${index}: ${detail}`);
  }
}
