import type { CallContext, JsonText, Transport } from './call-context';
import type { Body, Message } from './envelope';
import type { KeyRefusal, RateLimitedError, RpcError } from './errors';
import type { AnyMethod, MethodArgs } from './method';

/** A call as the engine dispatches it, transport-neutral. */
export interface RpcRequest {
  readonly method: string;
  /** Positional array, named object, URI query map, or undefined when absent. */
  readonly params: unknown;
  readonly id: unknown;
}

/** A batch limit with the config key that sets it (the `limit` label of refusals). */
export interface Limit {
  readonly max: number;
  readonly key: string;
}

export interface BatchLimits {
  /** Most members of a batch; max 0 = unlimited. */
  readonly requests: Limit;
  /** Bytes of results a batch may return before the rest is refused; max 0 = unlimited. */
  readonly responseBytes: Limit;
  /** How long (ms) a call, single, batch member or WebSocket message, may run before the timeout error; max 0 = no deadline. */
  readonly timeout?: Limit;
}

/**
 * What differs between the node RPC and the EVM RPC on the wire, as data and small functions: id rules,
 * params decoding, error codes and texts, batch quirks and notification frames. The engine is one.
 */
export interface Dialect {
  /** The `interface` label of metrics and logs. */
  readonly name: 'node' | 'evm';
  /** Parses a request body (one JSON-RPC message, or a batch where the transport allows it). */
  parse(text: string, transport: Transport): Body;
  /** The id text of an answer to a body that failed as a whole (undefined: no id key). */
  readonly bodyErrorId: string | undefined;
  /** The answer to an empty batch `[]`: an answer text, or undefined for an empty reply. */
  emptyBatch(): string | undefined;
  /** The whole answer to a batch over its size limit. */
  batchTooLarge(limit: Limit, messages: readonly Message[]): string;
  /** What the members of a batch get once its results passed `limit` bytes. */
  responseTooLarge(limit: Limit): RpcError;
  /** What calls unanswered at the deadline get. */
  timedOut(): RpcError;
  /** What a call over a rate budget gets (a single HTTP call also gets HTTP 429 and Retry-After). */
  rateLimited(limit: string, retryAfterMs: number): RateLimitedError;
  /** The answer's error to a request refused for its API key (with HTTP 401, before any call runs). */
  unauthorized(reason: KeyRefusal): RpcError;
  /** CometBFT answers a batch that has one answer with that answer alone. */
  readonly unwrapSingleAnswer: boolean;
  /** Turns raw params into the handler's named args; throws a typed RpcError on bad input. */
  decodeParams(method: AnyMethod, params: unknown, transport: Transport): MethodArgs;
  /** Maps any failure to the error a client of this interface expects. */
  toRpcError(err: unknown, request: RpcRequest, ctx: CallContext): RpcError;
  /** A notification frame of a subscription: `requestIdText` is the subscribe call's id. */
  notification(requestIdText: string, subscription: string, result: JsonText): Buffer;
  /** The frame that tells a client its subscription ended with `error`. */
  notificationError(requestIdText: string, subscription: string, error: RpcError): string;
}

/** Joins JSON text pieces into one buffer between `head` and `tail`. */
export function frame(head: string, body: JsonText, tail: string): Buffer {
  const parts: Buffer[] = [Buffer.from(head)];
  for (const piece of typeof body === 'string' || Buffer.isBuffer(body) ? [body] : body) parts.push(typeof piece === 'string' ? Buffer.from(piece) : piece);
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts);
}
