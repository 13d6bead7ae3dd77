/**
 * The node RPC's error catalogue: every failure a CometBFT v0.38 client can see, with the code,
 * message and data CometBFT writes. Handlers and backends throw the generic errors of rpc/errors.ts
 * (ApplicationError for a failed operation); `toNodeError` turns them into these.
 */
import type { Transport } from '../rpc/call-context';
import { ApplicationError, InternalError, InvalidParamsError, InvalidRequestError, LimitError, MethodNotFoundError, ParseError, RateLimitedError, RpcError, type KeyRefusal } from '../rpc/errors';

/** A body that is not JSON, or a member CometBFT cannot decode: the whole body fails, with no id. */
export class NodeParseError extends ParseError {
  constructor(detail: string) {
    super('Parse error. Invalid JSON', `error unmarshaling request: ${detail}`);
  }
}

export class BatchTooLargeError extends LimitError {
  constructor(limit: string, max: number) {
    super(limit, 'Invalid Request', -32600, `batch request exceeds maximum (${max}) allowed number of requests`);
  }
}

export class BodyTooLargeError extends LimitError {
  constructor(limit: string) {
    super(limit, 'Invalid Request', -32600, 'error reading request body: http: request body too large');
  }
}

/** A call over a rate budget: CometBFT's request-level refusal, the rule and the wait as data (HTTP 429). */
export class NodeRateLimitedError extends RateLimitedError {
  constructor(limit: string, retryAfterMs: number) {
    super(limit, retryAfterMs, 'Invalid Request', -32600, `rate limit exceeded (${limit}), retry after ${Math.max(1, Math.ceil(retryAfterMs / 1000))}s`);
  }
}

const KEY_REFUSALS: Record<KeyRefusal, string> = {
  missing: 'API key required',
  unknown: 'invalid API key',
  unavailable: 'API keys cannot be checked right now',
};

/** A request without a known API key where keys are required (HTTP 401; 503 when keys cannot be checked). */
export class NodeUnauthorizedError extends InvalidRequestError {
  constructor(reason: KeyRefusal) {
    super('Invalid Request', KEY_REFUSALS[reason]);
  }
}

/**
 * A query over a cap of `[limits]` (tx_search, block_search, subscribe): -32603 with the reason as
 * data, as CometBFT answers its own `maximum query length exceeded`.
 */
export class QueryTooLargeError extends LimitError {
  constructor(limit: string, detail: string) {
    super(limit, 'Internal error', -32603, detail);
  }
}

/** The body could not be read (the connection broke, a bad chunk). */
export class BodyReadError extends InvalidRequestError {
  constructor(detail: string) {
    super('Invalid Request', `error reading request body: ${detail}`);
  }
}

/** An unknown method (or one a guard hides): CometBFT's fixed text, whatever the reason. */
export class NodeMethodNotFoundError extends MethodNotFoundError {}

/** A handler failure: -32603 with the failure's text as data. */
export class NodeInternalError extends InternalError {
  constructor(detail: string) {
    super('Internal error', detail);
  }
}

/** A subscription ended by the server (slow client, shutdown); sent under the subscribe call's id. */
export class SubscriptionCanceledError extends RpcError {
  constructor(reason: string) {
    super(-32000, 'Server error', `subscription was canceled (reason: ${reason})`);
  }
}

/** The node RPC's answer to a failure, or undefined for an unexpected one (logged by the caller). */
export function toNodeError(err: unknown, transport: Transport): RpcError | undefined {
  if (err instanceof MethodNotFoundError) return new NodeMethodNotFoundError(err.reason);
  // Over WebSocket CometBFT reports param conversion errors as internal errors.
  if (err instanceof InvalidParamsError && transport === 'ws') return new NodeInternalError(String(err.data));
  if (err instanceof ApplicationError) return new NodeInternalError(err.message);
  if (err instanceof RpcError) return err;
  return undefined;
}
