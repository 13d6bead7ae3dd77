import { Logger } from '@nestjs/common';
import type { CallContext, JsonText, Transport } from '../rpc/call-context';
import { frame, type Dialect, type Limit, type RpcRequest } from '../rpc/dialect';
import { errorAnswer, type Body, type Message } from '../rpc/envelope';
import { MAX_JSON_DEPTH, nestedDeeperThan, skipWhitespace } from '../rpc/json-scan';
import { HandlerFailure, LimitError, RpcError, type KeyRefusal, type RateLimitedError } from '../rpc/errors';
import { BatchTooLargeError, NodeInternalError, NodeParseError, NodeRateLimitedError, NodeUnauthorizedError, toNodeError } from './node-errors';
import { decodeNodeParams } from './params/node-params';

/** CometBFT's id rules: strings kept, numbers truncated, null/absent = notification, others invalid. */
function classify(value: unknown, transport: Transport): Message | RpcError {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return new NodeParseError('json: cannot unmarshal non-object into Go value of type types.RPCRequest');
  }
  const o = value as Record<string, unknown>;
  const id = o.id;
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') {
    const kind = Array.isArray(id) ? 'array' : typeof id === 'object' ? 'object' : typeof id;
    return new NodeParseError(`json: cannot unmarshal id: ${kind} is not a string or number`);
  }
  const method = typeof o.method === 'string' ? o.method : '';
  // Over WebSocket CometBFT skips notifications; over HTTP it runs them without answering.
  if (id === undefined || id === null) return transport === 'ws' ? { kind: 'ignored' } : { kind: 'notification', method, params: o.params };
  const normalized = typeof id === 'number' ? Math.trunc(id) : id;
  return { kind: 'call', method, params: o.params, id: normalized, idText: JSON.stringify(normalized) };
}

/**
 * The node RPC's wire rules (CometBFT v0.38): strict JSON bodies, batches over HTTP only, a batch
 * answered with one answer is that answer alone, `[]` gets an empty body, parse errors have no id, and
 * errors are fixed messages with the detail in `data` (a handler failure is -32603 "Internal error").
 */
export class NodeDialect implements Dialect {
  readonly name = 'node';
  readonly bodyErrorId = undefined;
  readonly unwrapSingleAnswer = true;
  readonly decodeParams = decodeNodeParams;
  private readonly logger = new Logger('NodeRpc');

  parse(text: string, transport: Transport): Body {
    // Refused before it is parsed: a value nested this deep is built by nothing but an attack.
    if (nestedDeeperThan(text, skipWhitespace(text, 0), MAX_JSON_DEPTH)) return { kind: 'error', error: new NodeParseError(`exceeded max depth (${MAX_JSON_DEPTH})`) };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      return { kind: 'error', error: new NodeParseError(parseFailure(err as Error)) };
    }
    if (!Array.isArray(json)) {
      const message = classify(json, transport);
      return message instanceof RpcError ? { kind: 'error', error: message } : { kind: 'single', message };
    }
    if (transport === 'ws') return { kind: 'error', error: new NodeParseError('json: cannot unmarshal array into Go value of type types.RPCRequest') };
    const messages: Message[] = [];
    for (const item of json) {
      const message = classify(item, transport);
      if (message instanceof RpcError) return { kind: 'error', error: message };
      messages.push(message);
    }
    return { kind: 'batch', messages };
  }

  emptyBatch(): undefined {
    return undefined;
  }

  batchTooLarge(limit: Limit): string {
    return errorAnswer(undefined, new BatchTooLargeError(limit.key, limit.max));
  }

  /** The node RPC sets no cap on a batch's results; this only completes the dialect. */
  responseTooLarge(limit: Limit): RpcError {
    return new LimitError(limit.key, 'Invalid Request', -32600, 'response too large');
  }

  /** A handler's failure, as CometBFT answers its own timeouts (`timed out waiting for tx …`). */
  timedOut(): RpcError {
    return new LimitError('rpc_write_timeout', 'Internal error', -32603, 'request timed out');
  }

  rateLimited(limit: string, retryAfterMs: number): RateLimitedError {
    return new NodeRateLimitedError(limit, retryAfterMs);
  }

  unauthorized(reason: KeyRefusal): RpcError {
    return new NodeUnauthorizedError(reason);
  }

  toRpcError(err: unknown, request: RpcRequest, ctx: CallContext): RpcError {
    const error = toNodeError(err, ctx.transport);
    if (error !== undefined) return error;
    if (!(err instanceof HandlerFailure)) this.logger.error(`${request.method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return new NodeInternalError('internal error');
  }

  notification(requestIdText: string, _subscription: string, result: JsonText): Buffer {
    return frame(`{"jsonrpc":"2.0","id":${requestIdText},"result":`, result, '}');
  }

  notificationError(requestIdText: string, _subscription: string, error: RpcError): string {
    return errorAnswer(requestIdText, error);
  }
}

/** JSON.parse's message without the line and column newer V8 versions add: one text on every runtime. */
function parseFailure(err: Error): string {
  return err.message.replace(/ \(line \d+ column \d+\)$/, '');
}
