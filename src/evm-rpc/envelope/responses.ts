import type { RpcError } from '../../rpc/errors';

/** A serialized answer and the size of its result, which batch-response-max-size counts. */
export interface Answer {
  readonly json: string;
  readonly resultBytes: number;
}

/**
 * A backend may keep a result's exact wire text on the (unchanged) object under this shared symbol
 * (an upstream answer passed on as it came); it is written as it is instead of serialising again.
 */
const RAW_JSON = Symbol.for('rpc-gateway.raw-json');

/** `{"jsonrpc":"2.0","id":…,"result":…}`: go-ethereum's member order; the id is the request's raw text. */
export function resultAnswer(rawId: string, result: unknown): Answer {
  const raw = typeof result === 'object' && result !== null ? (result as { [RAW_JSON]?: string })[RAW_JSON] : undefined;
  const resultJson = raw ?? JSON.stringify(result ?? null);
  return { json: `{"jsonrpc":"2.0","id":${rawId},"result":${resultJson}}`, resultBytes: Buffer.byteLength(resultJson) };
}

export function errorAnswer(rawId: string, error: RpcError): Answer {
  return { json: `{"jsonrpc":"2.0","id":${rawId},"error":${JSON.stringify(error)}}`, resultBytes: 0 };
}
