/**
 * One call's life on the wire to an upstream: its deadline, an abort from a hedge, and its answer read
 * into one text. Only the envelope is looked at: `result` is handed on as its wire text when nothing
 * in the gateway reads it (UnreadJson), else parsed with that text attached (see result-json.ts), so
 * that a surface that changes nothing writes it out without serialising it again; an `error`
 * answered with HTTP 200 becomes an UpstreamAnswerError. An Exchange
 * is undici's dispatch handler of a call sent alone; a call sent inside a batch gets its answer from
 * the BatchExchange.
 */
import type { Dispatcher } from 'undici';
import type { Json } from '../../rpc/json';
import { DeadlineClock, type Expiring } from '../../rpc/deadline-clock';
import type { ReadWaiters } from './read-waiters';
import { attachRawJson, LARGE_RESULT, UnreadJson, type WireResult } from '../../rpc/result-json';
import { UpstreamAnswerError, UpstreamFailure } from './upstream-errors';

export interface CallResult {
  /** Parsed, or its wire text when the call was made unread. */
  readonly result: WireResult;
  /** Size of the response body, for the cache's byte budget. */
  readonly bytes: number;
}

const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** How often the deadlines of the calls in flight are checked: a call times out at most this late. */
const DEADLINE_TICK_MS = 10;

const deadlines = new DeadlineClock(DEADLINE_TICK_MS);

export class Exchange implements Dispatcher.DispatchHandler, Expiring {
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  private status = 0;
  private readonly chunks: Buffer[] = [];
  /** When it times out on its own (performance.now() time). */
  private readonly timesOutAt: number;
  private readonly onAbort: (() => void) | undefined;
  /** Its request headers when they differ from the client's own (a trace context). */
  headers: Record<string, string> | undefined;

  constructor(
    /** The JSON-RPC id it is sent under. */
    readonly id: number,
    /** Its request text. */
    readonly body: string,
    private readonly resolve: (result: CallResult) => void,
    private readonly reject: (error: Error) => void,
    private readonly timeoutMs: number,
    /** A hedge leg's abort (when the other leg won). */
    private readonly signal: AbortSignal | undefined,
    /** The calls waiting for it: once they all timed out it is abandoned (not an upstream's time-out). */
    private readonly waiters: ReadWaiters | undefined,
    /** Its result is handed on as its wire text, not parsed (nothing in the gateway reads it). */
    private readonly unread: boolean,
  ) {
    this.timesOutAt = performance.now() + timeoutMs;
    deadlines.add(this);
    if (signal) {
      this.onAbort = () => this.fail(new UpstreamFailure('aborted', 'aborted'));
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /** When the deadline clock ends it: at once when no call waits any more (read at each tick). */
  get deadline(): number {
    return this.waiters?.abandoned ? 0 : this.timesOutAt;
  }

  /** Timed out or aborted while it waited: it is not sent. */
  get done(): boolean {
    return this.settled;
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
    if (this.unread && this.status === 200 && this.chunks.length > 0) {
      const result = unreadPieces(this.chunks);
      if (result !== undefined) return this.succeed({ result, bytes: result.size });
    }
    this.answer(joinText(this.chunks), this.status);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error & { code?: string }): void {
    this.fail(failureOf(err, this.status !== 0));
  }

  /** Settles on the text of the node's answer to this call. */
  answer(text: string, status: number): void {
    if (this.settled) return;
    const fast = status === 200 ? resultFast(text, this.unread) : undefined;
    if (fast !== undefined) return this.succeed({ result: fast, bytes: text.length });
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      return this.fail(new UpstreamFailure(`HTTP ${status}: not JSON`, status === 200 ? 'body' : 'http'));
    }
    this.settle(envelope, status, text.length, undefined);
  }

  /** Settles on the node's answer to this call, parsed (`raw`: the wire text of its result, when known). */
  settle(answer: unknown, status: number, bytes: number, raw: string | undefined): void {
    if (this.settled) return;
    const envelope = (typeof answer === 'object' && answer !== null ? answer : {}) as { result?: Json; error?: { code?: number; message?: string; data?: unknown } };
    if (envelope.error) {
      const e = envelope.error;
      // The node's verdict comes with HTTP 200. An error under another status is written by something in
      // front of it (a load balancer, a provider's gateway: 429, 502, 503) or by a node that failed (a
      // CometBFT panic is a 500): no verdict on the call, which another upstream may serve.
      if (status !== 200) return this.fail(new UpstreamFailure(`HTTP ${status}: ${JSON.stringify(e).slice(0, 200)}`, 'http'));
      if (typeof e !== 'object') return this.fail(new UpstreamFailure(`HTTP 200: "error" is not a JSON-RPC error object`, 'body'));
      const detail = typeof e.data === 'string' ? e.data : e.data === undefined ? '' : JSON.stringify(e.data);
      return this.fail(new UpstreamAnswerError(e.code ?? -32603, e.message ?? '', detail, e.data));
    }
    if (status !== 200 || !('result' in envelope)) return this.fail(new UpstreamFailure(`HTTP ${status}: no result`, 'http'));
    this.succeed({ result: attachRawJson(envelope.result as Json, raw), bytes });
  }

  /** Its deadline passed without an answer, or no caller waits for one any more. */
  expire(): void {
    // No caller waits any more: given up, which says nothing of the upstream.
    if (this.waiters?.abandoned) return this.fail(new UpstreamFailure('aborted', 'aborted'));
    this.fail(new UpstreamFailure(`no answer within ${this.timeoutMs}ms`, 'timeout'));
  }

  fail(error: UpstreamFailure | UpstreamAnswerError): void {
    if (this.settled) return;
    this.settled = true;
    this.cleanup();
    this.controller?.abort(error);
    this.reject(error);
  }

  private succeed(result: CallResult): void {
    this.settled = true;
    this.cleanup();
    this.resolve(result);
  }

  private cleanup(): void {
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** The body of an answer as text. */
export function joinText(chunks: readonly Buffer[]): string {
  return chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

/** An error undici reported for an exchange, by kind (`answering`: the node had begun its answer). */
export function failureOf(err: Error & { code?: string }, answering: boolean): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  if (answering) return new UpstreamFailure(err.message, 'body');
  const code = err.code;
  return new UpstreamFailure(code ? `${code}: ${err.message}` : err.message, NOT_CONNECTED.has(code ?? '') ? 'refused' : 'connect');
}

const PREFIX = '{"jsonrpc":"2.0","id":';
const RESULT = ',"result":';

/**
 * Where the result begins in an answer written as CometBFT, go-ethereum and anvil write one
 * (`{"jsonrpc":"2.0","id":<n>,"result":<value>}`), from the answer's head (`head`, at least the envelope
 * up to the result); -1 for any other head.
 */
function resultStart(head: string): number {
  if (!head.startsWith(PREFIX)) return -1;
  let i = PREFIX.length;
  while (i < head.length && head.charCodeAt(i) >= 48 && head.charCodeAt(i) <= 57) i++;
  return i > PREFIX.length && head.startsWith(RESULT, i) ? i + RESULT.length : -1;
}

/** The head of an answer's first chunk that resultStart reads: room for any id the gateway sends. */
const HEAD_BYTES = PREFIX.length + 20 + RESULT.length;

/** Where the result ends: at the answer's closing brace, trailing whitespace left out; -1 without one. */
function resultEnd(code: (i: number) => number, length: number): number {
  let end = length;
  while (end > 0 && code(end - 1) <= 32) end--;
  return end > 0 && code(end - 1) === 125 /* } */ ? end - 1 : -1;
}

/**
 * resultFast on the chunks of a large unread answer, the envelope's head in the first and its closing
 * brace in the last: the result's bytes in the pieces they were read in, neither joined nor decoded;
 * undefined for a small answer or any other shape (the text path takes it).
 */
function unreadPieces(chunks: readonly Buffer[]): UnreadJson | undefined {
  let size = 0;
  for (const chunk of chunks) size += chunk.length;
  if (size < LARGE_RESULT) return undefined;
  const first = chunks[0];
  const last = chunks[chunks.length - 1];
  const start = resultStart(first.toString('latin1', 0, HEAD_BYTES));
  const end = resultEnd((i) => last[i], last.length);
  if (start < 0 || end < 0 || (chunks.length === 1 && end < start)) return undefined;
  const pieces = chunks.length === 1 ? [first.subarray(start, end)] : [first.subarray(start), ...chunks.slice(1, -1), last.subarray(0, end)];
  return UnreadJson.ofBytes(pieces.filter((piece) => piece.length > 0));
}

/**
 * The result of an answer written as nodes write one (resultStart), from its own slice of the text:
 * that slice as it is when `unread`, else parsed, the slice kept as its wire form; undefined for any
 * other shape (errors, other member orders), which the caller parses in full. JSON.parse of the slice
 * fails unless it is exactly one value. An unread slice is not parsed at all: the node's bytes go to the
 * client as a proxy passes them (HTTP framing has delimited them).
 */
function resultFast(text: string, unread: boolean): WireResult | undefined {
  const start = resultStart(text);
  const end = resultEnd((i) => text.charCodeAt(i), text.length);
  if (start < 0 || end < start) return undefined;
  const raw = text.slice(start, end);
  if (unread) return UnreadJson.ofText(raw);
  try {
    return attachRawJson(JSON.parse(raw) as Json, raw);
  } catch {
    return undefined;
  }
}
