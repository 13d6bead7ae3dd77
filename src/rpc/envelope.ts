import type { RpcError } from './errors';

/**
 * One member of a request body, as the interface's dialect classified it. `idText` is the id exactly as
 * it goes back in the answer (the dialect's id rules: CometBFT truncates numbers, go-ethereum echoes the
 * raw text).
 */
export type Message =
  | { readonly kind: 'call'; readonly method: string; readonly params: unknown; readonly id: unknown; readonly idText: string }
  /** Runs (or not, as the dialect decides when classifying) and gets no answer. */
  | { readonly kind: 'notification'; readonly method: string; readonly params: unknown }
  /** Answered with `error` and `idText`. */
  | { readonly kind: 'invalid'; readonly idText: string; readonly error: RpcError }
  /** Dropped silently (a response sent to the server, a notification the dialect does not run). */
  | { readonly kind: 'ignored' };

export type Body =
  | { readonly kind: 'empty' }
  /** The whole body fails (unparsable JSON, a member CometBFT cannot decode): one error, no member runs. */
  | { readonly kind: 'error'; readonly error: RpcError }
  | { readonly kind: 'single'; readonly message: Message }
  | { readonly kind: 'batch'; readonly messages: readonly Message[] };

/** `{"jsonrpc":"2.0","id":…,"result":…}`; `idText` undefined leaves the id key out (CometBFT's parse errors). */
export function resultAnswer(idText: string | undefined, resultJson: string): string {
  return `${resultHead(idText)}${resultJson}}`;
}

/** resultAnswer in pieces, around a result's wire bytes (an upstream's large answer, never decoded nor copied). */
export function resultAnswerPieces(idText: string | undefined, result: readonly Buffer[]): readonly (string | Buffer)[] {
  return [resultHead(idText), ...result, '}'];
}

/** The UTF-8 size of resultAnswer's text around a result of `resultBytes` bytes (only the id is measured). */
export function resultAnswerBytes(idText: string | undefined, resultBytes: number): number {
  const head = idText === undefined ? HEAD.length : HEAD_ID.length + Buffer.byteLength(idText) + RESULT_KEY.length;
  return head + resultBytes + 1;
}

const HEAD = '{"jsonrpc":"2.0","result":';
const HEAD_ID = '{"jsonrpc":"2.0","id":';
const RESULT_KEY = ',"result":';

function resultHead(idText: string | undefined): string {
  return idText === undefined ? HEAD : `${HEAD_ID}${idText}${RESULT_KEY}`;
}

export function errorAnswer(idText: string | undefined, error: RpcError): string {
  return idText === undefined
    ? `{"jsonrpc":"2.0","error":${JSON.stringify(error)}}`
    : `{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify(error)}}`;
}

/** The id text of a member that expects an answer, if any. */
export function answeredIdOf(message: Message): string | undefined {
  return message.kind === 'call' || message.kind === 'invalid' ? message.idText : undefined;
}
