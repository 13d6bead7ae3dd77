/**
 * Typed JSON-RPC errors: the only way a handler, guard or codec reports failure. Each carries the code,
 * message and optional data that goes on the wire; the surfaces (node RPC, EVM RPC) choose the texts.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined || this.data === ''
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** A JSON-RPC 2.0 standard error: its code, with the specification's message unless given another. */
function standardError(code: number, specMessage: string) {
  return class extends RpcError {
    constructor(message = specMessage, data?: unknown) {
      super(code, message, data);
    }
  };
}

export class ParseError extends standardError(-32700, 'Parse error') {}
export class InvalidRequestError extends standardError(-32600, 'Invalid Request') {}
export class InvalidParamsError extends standardError(-32602, 'Invalid params') {}
export class InternalError extends standardError(-32603, 'Internal error') {}

/** Why a guard refused a call; transports and metrics tell the cases apart. */
export type NotFoundReason = 'unknown' | 'unsafe' | 'websocket-only' | 'namespace-disabled';

/** A call a guard refused (or an unknown method): metrics count it under its reason. */
export class RefusalError extends RpcError {
  constructor(
    readonly reason: NotFoundReason,
    code: number,
    message: string,
    data?: unknown,
  ) {
    super(code, message, data);
  }
}

export class MethodNotFoundError extends RefusalError {
  constructor(reason: NotFoundReason, message = 'Method not found', data?: unknown) {
    super(reason, -32601, message, data);
  }
}

/**
 * A failure of the operation itself (height not available, tx not found, revert, …), raised by
 * backends. Each surface maps it to its own envelope: the node RPC answers -32603 "Internal error"
 * with the text as data; the EVM RPC answers the code with the text as message.
 */
export class ApplicationError extends RpcError {
  constructor(message: string, code = -32000, data?: unknown) {
    super(code, message, data);
  }
}

/** A limit of the server was hit (connections, subscriptions, batch size, body size). */
export class LimitError extends RpcError {
  constructor(
    readonly limit: string,
    message: string,
    code = -32600,
    data?: unknown,
  ) {
    super(code, message, data);
  }
}

/**
 * A call over a rate budget. `limit` names the rule (the `limit` label of refusals); the budget has
 * room again after `retryAfterMs`. Each dialect words it (see Dialect.rateLimited).
 */
export class RateLimitedError extends LimitError {
  constructor(
    limit: string,
    readonly retryAfterMs: number,
    message = 'limit exceeded',
    code = -32005,
    data?: unknown,
  ) {
    super(limit, message, code, data);
  }
}

/**
 * Why a request was refused for its API key: none given, not a known one (HTTP 401), or the key store
 * cannot be reached (HTTP 503).
 */
export type KeyRefusal = 'missing' | 'unknown' | 'unavailable';

/**
 * A handler failure its owner already logged (a plugin method that threw): the interface answers its
 * internal error without logging it again.
 */
export class HandlerFailure extends Error {}
