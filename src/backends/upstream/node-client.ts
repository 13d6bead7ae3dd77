/**
 * JSON-RPC over HTTP to one upstream node (node RPC or EVM RPC), on undici's keep-alive connection
 * pool, driven through its dispatch handler interface (no response stream, no header object walk).
 * Only the envelope is looked at: `result` is handed on as parsed, with its wire text attached (see
 * raw-json.ts) so that a surface that changes nothing can write it out without serialising it again;
 * an `error` becomes an UpstreamAnswerError.
 */
import { Pool, type Dispatcher } from 'undici';
import type { Json } from '../../rpc/json';
import { attachRawJson } from './raw-json';

/** The upstream answered with a JSON-RPC error: an answer, not an upstream failure. */
export class UpstreamAnswerError extends Error {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    /** CometBFT's detail text (`data`), the part a client reads. */
    readonly detail: string,
    /** `data` as answered (EVM: revert data). */
    readonly data?: unknown,
  ) {
    super(detail || rpcMessage);
    this.name = 'UpstreamAnswerError';
  }
}

/** The upstream could not be reached or did not answer properly (connection, timeout, HTTP status, body). */
export class UpstreamFailure extends Error {
  constructor(
    message: string,
    /** `refused`: no connection was made, so the request surely never reached the node. */
    readonly kind: 'refused' | 'connect' | 'timeout' | 'http' | 'body' | 'aborted',
  ) {
    super(message);
    this.name = 'UpstreamFailure';
  }
}

export interface CallResult {
  readonly result: Json;
  /** Size of the response body, for the cache's byte budget. */
  readonly bytes: number;
}

const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

export class NodeClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private nextId = 1;

  constructor(readonly url: string) {
    const target = new URL(url);
    // The path ends with a slash (a query, where providers put keys, is left as it is).
    if (!target.pathname.endsWith('/')) target.pathname += '/';
    this.pool = new Pool(target.origin, { connections: 128 });
    this.path = target.pathname + target.search;
    this.headers = { 'content-type': 'application/json' };
    // Credentials in the URL are sent as Basic auth, as node:http does.
    if (target.username || target.password) {
      const credentials = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
  }

  /** `params`: by name (CometBFT) or by position (EVM). */
  call(method: string, params: Json, timeoutMs: number, signal?: AbortSignal): Promise<CallResult> {
    const body = `{"jsonrpc":"2.0","id":${this.nextId++},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
    return new Promise<CallResult>((resolve, reject) => {
      if (signal?.aborted) return reject(new UpstreamFailure('aborted', 'aborted'));
      this.pool.dispatch({ path: this.path, method: 'POST', headers: this.headers, body }, new Exchange(resolve, reject, timeoutMs, signal));
    });
  }

  close(): void {
    this.pool.destroy().catch(() => undefined);
  }
}

/** One request's life: its deadline, an abort from a hedge, and the answer read into one text. */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  private status = 0;
  private readonly chunks: Buffer[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly resolve: (result: CallResult) => void,
    private readonly reject: (error: Error) => void,
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => this.fail(new UpstreamFailure(`no answer within ${timeoutMs}ms`, 'timeout')), timeoutMs);
    if (signal) {
      this.onAbort = () => this.fail(new UpstreamFailure('aborted', 'aborted'));
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Settled while it waited for a connection: it goes no further.
    if (this.settled) controller.abort(new UpstreamFailure('aborted', 'aborted'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    const chunks = this.chunks;
    const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
    const status = this.status;
    const fast = status === 200 ? parseResultFast(text) : undefined;
    if (fast !== undefined) return this.succeed({ result: fast, bytes: text.length });
    let envelope: { result?: Json; error?: { code?: number; message?: string; data?: unknown } };
    try {
      envelope = JSON.parse(text);
    } catch {
      return this.fail(new UpstreamFailure(`HTTP ${status}: not JSON`, status === 200 ? 'body' : 'http'));
    }
    if (envelope.error) {
      const e = envelope.error;
      const detail = typeof e.data === 'string' ? e.data : e.data === undefined ? '' : JSON.stringify(e.data);
      return this.fail(new UpstreamAnswerError(e.code ?? -32603, e.message ?? '', detail, e.data));
    }
    if (status !== 200 || !('result' in envelope)) return this.fail(new UpstreamFailure(`HTTP ${status}: no result`, 'http'));
    this.succeed({ result: attachRawJson(envelope.result as Json, undefined), bytes: text.length });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error & { code?: string }): void {
    if (err instanceof UpstreamFailure) return this.fail(err);
    if (this.status !== 0) return this.fail(new UpstreamFailure(err.message, 'body'));
    const code = err.code;
    this.fail(new UpstreamFailure(code ? `${code}: ${err.message}` : err.message, NOT_CONNECTED.has(code ?? '') ? 'refused' : 'connect'));
  }

  private succeed(result: CallResult): void {
    this.settled = true;
    this.cleanup();
    this.resolve(result);
  }

  private fail(error: UpstreamFailure | UpstreamAnswerError): void {
    if (this.settled) return;
    this.settled = true;
    this.cleanup();
    this.controller?.abort(error);
    this.reject(error);
  }

  private cleanup(): void {
    clearTimeout(this.timer);
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
  }
}

const PREFIX = '{"jsonrpc":"2.0","id":';
const RESULT = ',"result":';

/**
 * The result of an answer written as CometBFT, go-ethereum and anvil write one
 * (`{"jsonrpc":"2.0","id":<n>,"result":<value>}`), parsed from its own slice of the text, which is kept
 * as its wire form; undefined for any other shape (errors, other member orders), which the caller
 * parses in full. JSON.parse of the slice fails unless it is exactly one value.
 */
function parseResultFast(text: string): Json | undefined {
  if (!text.startsWith(PREFIX)) return undefined;
  let i = PREFIX.length;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  if (i === PREFIX.length || !text.startsWith(RESULT, i)) return undefined;
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) <= 32) end--;
  if (text.charCodeAt(end - 1) !== 125 /* } */) return undefined;
  const raw = text.slice(i + RESULT.length, end - 1);
  try {
    return attachRawJson(JSON.parse(raw) as Json, raw);
  } catch {
    return undefined;
  }
}
