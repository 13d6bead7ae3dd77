import type { RpcRequest } from '../../rpc/dispatcher';
import { RpcError } from '../../rpc/errors';
import { resultJson } from '../../rpc/result-json';

/** A request of the node RPC's JSON-RPC envelope; `notification` requests run but get no reply. */
export interface NodeRequest extends RpcRequest {
  readonly notification: boolean;
}

export type ParsedBody =
  | { readonly ok: true; readonly batch: boolean; readonly requests: NodeRequest[] }
  | { readonly ok: false; readonly error: RpcError };

function parseError(detail: string): RpcError {
  return new RpcError(-32700, 'Parse error. Invalid JSON', `error unmarshaling request: ${detail}`);
}

/** CometBFT's id rules: strings kept, numbers truncated, null/absent = notification, others invalid. */
function toRequest(value: unknown): NodeRequest | RpcError {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return parseError('json: cannot unmarshal non-object into Go value of type types.RPCRequest');
  }
  const o = value as Record<string, unknown>;
  const id = o.id;
  let normalizedId: unknown = id;
  if (typeof id === 'number') normalizedId = Math.trunc(id);
  else if (id !== undefined && id !== null && typeof id !== 'string') {
    return parseError('json: cannot unmarshal id: ' + (Array.isArray(id) ? 'array' : typeof id === 'object' ? 'object' : typeof id) + ' is not a string or number');
  }
  const method = typeof o.method === 'string' ? o.method : '';
  return { method, params: o.params, id: normalizedId, notification: id === undefined || id === null };
}

/** Parses a JSON-RPC body: a batch array or a single object (WebSocket messages allow no batches). */
export function parseJsonRpcBody(text: string, allowBatch: boolean): ParsedBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: parseError((err as Error).message) };
  }
  if (Array.isArray(json)) {
    if (!allowBatch) return { ok: false, error: parseError('json: cannot unmarshal array into Go value of type types.RPCRequest') };
    const requests: NodeRequest[] = [];
    for (const item of json) {
      const r = toRequest(item);
      if (r instanceof RpcError) return { ok: false, error: r };
      requests.push(r);
    }
    return { ok: true, batch: true, requests };
  }
  const r = toRequest(json);
  return r instanceof RpcError ? { ok: false, error: r } : { ok: true, batch: false, requests: [r] };
}

/** Compact JSON with CometBFT's key order; a parse-level error has no id key at all. */
export function serializeResponse(id: unknown, outcome: { result: unknown } | { error: RpcError }): string {
  const idPart = id === undefined ? '' : `"id":${JSON.stringify(id)},`;
  if ('error' in outcome) return `{"jsonrpc":"2.0",${idPart}"error":${JSON.stringify(outcome.error)}}`;
  return `{"jsonrpc":"2.0",${idPart}"result":${resultJson(outcome.result)}}`;
}

