/** One upstream (a node-RPC or an EVM endpoint): its client, what the health checks learned, and its counters. */
import { CircuitBreaker } from './circuit-breaker';
import { LatencyWindow } from './latency-window';
import { JsonRpcClient } from './json-rpc-client';
import { redactUrl } from './redact-url';
import type { UpstreamEndpoint, UpstreamSettings } from '../../config/upstream-config';

/**
 * A subscription socket whose node's head (from health checks, or its other sockets) has moved this many
 * blocks past the last height it delivered is stalled: open, yet sending nothing more.
 */
export const STALL_BLOCKS = 3n;

export type DownReason = '' | 'unreachable' | 'lagging' | 'catching-up' | 'wrong-chain' | 'bad-height' | 'not-checked';

export interface UpstreamCounters {
  requests: number;
  failures: number;
  /** JSON-RPC errors answered by the upstream (not failures). */
  answerErrors: number;
  hedges: number;
  retries: number;
}

export class Upstream {
  readonly client: JsonRpcClient;
  readonly breaker: CircuitBreaker;
  /** The URL as logs and /health show it: `scheme://host[:port]` (see redact-url.ts). */
  readonly endpoint: string;
  readonly latency = new LatencyWindow();
  readonly counters: UpstreamCounters = { requests: 0, failures: 0, answerErrors: 0, hedges: 0, retries: 0 };
  /** Requests in flight now. */
  inFlight = 0;
  healthy = false;
  downReason: DownReason = 'not-checked';
  /** The last error of a health check, for logs and /health. */
  lastError = '';
  latestHeight = 0n;
  earliestHeight = 1n;
  catchingUp = false;
  network = '';
  lastCheckedAt = 0;
  /** Health checks in a row that went unanswered. */
  missedChecks = 0;
  /** Taken out of its pool by a reload: no new request goes to it; those in flight finish on it. */
  retired = false;

  constructor(
    readonly config: UpstreamEndpoint,
    settings: UpstreamSettings,
    /** It answered a batch with something else than an array (see JsonRpcClient). */
    onBatchRefused: (upstream: Upstream, reason: string) => void = () => undefined,
  ) {
    const batching = { maxSize: settings.batch_max_size, maxWaitMs: settings.batch_max_wait };
    this.client = new JsonRpcClient(config.url, batching, (reason) => onBatchRefused(this, reason));
    this.endpoint = redactUrl(config.url);
    this.breaker = new CircuitBreaker(settings.breaker_failures, settings.breaker_window, settings.breaker_open_time);
  }

  get name(): string {
    return this.config.name;
  }

  get weight(): number {
    return this.config.weight;
  }

  /** The node keeps block `height` (between its earliest and latest). */
  has(height: bigint): boolean {
    return height >= this.earliestHeight && height <= this.latestHeight;
  }

  /** Raises the known latest height (heights seen on the socket move it between checks). */
  observeHeight(height: bigint): void {
    if (height > this.latestHeight) this.latestHeight = height;
  }

  /** A snapshot for /health, logs and metrics. */
  describe(): Record<string, string | number | boolean> {
    return {
      name: this.name,
      url: this.endpoint,
      healthy: this.healthy,
      reason: this.downReason,
      error: this.lastError,
      latest_height: this.latestHeight.toString(),
      earliest_height: this.earliestHeight.toString(),
      catching_up: this.catchingUp,
      breaker: this.breaker.state,
      in_flight: this.inFlight,
      batches: this.client.batches.sent,
      batched_requests: this.client.batches.calls,
      ...this.counters,
    };
  }

  close(): void {
    this.client.close();
  }

  /**
   * Out of the pool (a reload): no new request is sent to it, and its connections close once the
   * requests in flight on it have ended (or after `graceMs`, their timeout, at the latest).
   */
  retire(graceMs: number): void {
    this.retired = true;
    if (this.inFlight === 0) return this.close();
    const deadline = Date.now() + graceMs;
    const wait = setInterval(() => {
      if (this.inFlight > 0 && Date.now() < deadline) return;
      clearInterval(wait);
      this.close();
    }, 50);
    wait.unref();
  }
}
