/**
 * JSON-RPC over HTTP to one upstream node (node RPC or EVM RPC), on undici's keep-alive connection
 * pool, driven through its dispatch handler interface (no response stream, no header object walk).
 *
 * With batching on, calls made in the same turn of the event loop (or within `maxWaitMs`) go out as
 * one JSON-RPC batch of up to `maxSize` calls: one request and one answer on the wire instead of one
 * per call, which under load saves the gateway and the node most of their per-request work. Each call
 * keeps its own deadline and abort, and its own answer (see batch-exchange.ts).
 */
import { Pool } from 'undici';
import type { Json } from '../../rpc/json';
import { BatchExchange } from './batch-exchange';
import { Exchange, type CallResult } from './exchange';
import type { ReadWaiters } from './read-waiters';
import { UpstreamFailure } from './upstream-errors';

export interface Batching {
  /** Most calls in one batch; 1 = every call alone. */
  readonly maxSize: number;
  /** How long the first call of a batch waits for others; 0 = only those of the same event-loop turn. */
  readonly maxWaitMs: number;
}

const ALONE: Batching = { maxSize: 1, maxWaitMs: 0 };

/** What a call may carry besides its method and params. */
export interface CallOptions {
  /** A hedge leg's abort (when the other leg won). */
  readonly signal?: AbortSignal;
  /** The call's trace context (traceparent). */
  readonly traceHeaders?: Record<string, string>;
  /** The calls waiting for it (abandoned when they all timed out). */
  readonly waiters?: ReadWaiters;
  /** Nothing in the gateway reads the result: it comes as its wire text (UnreadJson), not parsed. */
  readonly unread?: boolean;
}

export class JsonRpcClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private nextId = 1;
  private batchMax: number;
  private queue: Exchange[] = [];
  private cancelFlush: (() => void) | undefined;
  /** Batches sent, and the calls they carried. */
  readonly batches = { sent: 0, calls: 0 };

  constructor(
    readonly url: string,
    private readonly batching: Batching = ALONE,
    /** The node answered a batch with something else than an array: its calls go alone from now on. */
    private readonly onBatchRefused?: (reason: string) => void,
  ) {
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
    this.batchMax = batching.maxSize;
  }

  /** `params`: by name (CometBFT) or by position (EVM). */
  call(method: string, params: Json, timeoutMs: number, options: CallOptions = {}): Promise<CallResult> {
    const id = this.nextId++;
    const body = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
    const { signal, waiters, traceHeaders } = options;
    return new Promise<CallResult>((resolve, reject) => {
      if (signal?.aborted || waiters?.abandoned) return reject(new UpstreamFailure('aborted', 'aborted'));
      const call = new Exchange(id, body, resolve, reject, timeoutMs, signal, waiters, options.unread === true);
      if (traceHeaders) call.headers = { ...this.headers, ...traceHeaders };
      if (this.batchMax <= 1) return this.send(call);
      this.queue.push(call);
      if (this.queue.length >= this.batchMax) this.flush();
      else if (this.queue.length === 1) this.scheduleFlush();
    });
  }

  close(): void {
    this.pool.destroy().catch(() => undefined);
  }

  private send(call: Exchange): void {
    this.pool.dispatch({ path: this.path, method: 'POST', headers: call.headers ?? this.headers, body: call.body }, call);
  }

  private scheduleFlush(): void {
    const wait = this.batching.maxWaitMs;
    if (wait > 0) {
      const timer = setTimeout(() => this.flush(), wait);
      this.cancelFlush = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => this.flush());
      this.cancelFlush = () => clearImmediate(immediate);
    }
  }

  private flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    const calls = this.queue.filter((call) => !call.done);
    this.queue = [];
    if (calls.length <= 1) return calls.length === 1 ? this.send(calls[0]) : undefined;
    this.batches.sent++;
    this.batches.calls += calls.length;
    const body = `[${calls.map((call) => call.body).join(',')}]`;
    // One request carries one trace context: the first traced call's.
    const headers = calls.find((call) => call.headers)?.headers ?? this.headers;
    this.pool.dispatch({ path: this.path, method: 'POST', headers, body }, new BatchExchange(calls, (reason) => this.refused(calls, reason)));
  }

  private refused(calls: readonly Exchange[], reason: string): void {
    if (this.batchMax > 1) {
      this.batchMax = 1;
      this.onBatchRefused?.(reason);
    }
    for (const call of calls) if (!call.done) this.send(call);
  }
}
