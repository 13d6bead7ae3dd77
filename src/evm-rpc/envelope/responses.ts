import type { RpcError } from '../../rpc/errors';
import { resultJson } from '../../rpc/result-json';

/** A serialized answer and its result's text, whose size batch-response-max-size counts. */
export interface Answer {
  readonly json: string;
  /** '' for an error. */
  readonly resultJson: string;
}

/** `{"jsonrpc":"2.0","id":…,"result":…}`: go-ethereum's member order; the id is the request's raw text. */
export function resultAnswer(rawId: string, result: unknown): Answer {
  const json = resultJson(result ?? null);
  return { json: `{"jsonrpc":"2.0","id":${rawId},"result":${json}}`, resultJson: json };
}

export function errorAnswer(rawId: string, error: RpcError): Answer {
  return { json: `{"jsonrpc":"2.0","id":${rawId},"error":${JSON.stringify(error)}}`, resultJson: '' };
}
