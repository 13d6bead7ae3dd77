/**
 * JSON-RPC over HTTP to one upstream node (node RPC or EVM RPC), on a keep-alive connection pool
 * (node:http's Agent: the project's dependency set has no undici package, and this is the same model).
 * Only the envelope is looked at: `result` is handed on as parsed, with its wire text attached (see
 * raw-json.ts) so that a surface that changes nothing can write it out without serialising it again;
 * an `error` becomes an UpstreamAnswerError.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Json } from '../node-backend';
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
  private readonly agent: HttpAgent;
  private readonly target: URL;
  private readonly send: typeof httpRequest;
  private nextId = 1;

  constructor(readonly url: string) {
    this.target = new URL(url.endsWith('/') ? url : url + '/');
    const https = this.target.protocol === 'https:';
    this.send = https ? httpsRequest : httpRequest;
    const options = { keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 128, maxFreeSockets: 32, scheduling: 'lifo' as const };
    this.agent = https ? new HttpsAgent(options) : new HttpAgent(options);
  }

  /** `params`: by name (CometBFT) or by position (EVM). */
  call(method: string, params: Json, timeoutMs: number, signal?: AbortSignal): Promise<CallResult> {
    const body = `{"jsonrpc":"2.0","id":${this.nextId++},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
    return new Promise<CallResult>((resolve, reject) => {
      if (signal?.aborted) return reject(new UpstreamFailure('aborted', 'aborted'));
      let settled = false;
      const fail = (error: UpstreamFailure | UpstreamAnswerError) => {
        if (settled) return;
        settled = true;
        cleanup();
        req.destroy();
        reject(error);
      };
      const timer = setTimeout(() => fail(new UpstreamFailure(`no answer within ${timeoutMs}ms`, 'timeout')), timeoutMs);
      const onAbort = () => fail(new UpstreamFailure('aborted', 'aborted'));
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const req = this.send(
        this.target,
        {
          method: 'POST',
          agent: this.agent,
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (err) => fail(new UpstreamFailure(err.message, 'body')));
          res.on('end', () => {
            if (settled) return;
            const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
            const fast = res.statusCode === 200 ? parseResultFast(text) : undefined;
            if (fast !== undefined) {
              settled = true;
              cleanup();
              return resolve({ result: fast, bytes: text.length });
            }
            let envelope: { result?: Json; error?: { code?: number; message?: string; data?: unknown } };
            try {
              envelope = JSON.parse(text);
            } catch {
              return fail(new UpstreamFailure(`HTTP ${res.statusCode}: not JSON`, res.statusCode === 200 ? 'body' : 'http'));
            }
            if (envelope.error) {
              const e = envelope.error;
              const detail = typeof e.data === 'string' ? e.data : e.data === undefined ? '' : JSON.stringify(e.data);
              return fail(new UpstreamAnswerError(e.code ?? -32603, e.message ?? '', detail, e.data));
            }
            if (res.statusCode !== 200 || !('result' in envelope)) {
              return fail(new UpstreamFailure(`HTTP ${res.statusCode}: no result`, 'http'));
            }
            settled = true;
            cleanup();
            resolve({ result: attachRawJson(envelope.result as Json, undefined), bytes: text.length });
          });
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) =>
        fail(new UpstreamFailure(err.code ? `${err.code}: ${err.message}` : err.message, NOT_CONNECTED.has(err.code ?? '') ? 'refused' : 'connect')),
      );
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
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
