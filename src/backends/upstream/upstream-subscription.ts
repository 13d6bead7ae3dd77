/**
 * One query subscribed on one upstream's `/websocket` (a socket per query: CometBFT limits the
 * subscriptions of one client, 5 by default). When the socket drops, its upstream turns unhealthy, or
 * (a query with an event at every height) the socket stalls, it moves to another healthy upstream and
 * subscribes again; events go to `onEvent` in arrival order.
 */
import { Logger } from '@nestjs/common';
import WebSocket from 'ws';
import { ApplicationError } from '../../rpc/errors';
import { eventHeight } from './block-event-synth';
import { candidates } from './router';
import { STALL_BLOCKS, type Upstream } from './upstream';

export interface UpstreamEvent {
  readonly type: string;
  readonly data: unknown;
  readonly events: Record<string, string[]>;
}

export interface SubscriptionHost {
  upstreams(): readonly Upstream[];
  /** Why no upstream is usable, as the client should read it. */
  unavailable(): Error;
  onEvent(event: UpstreamEvent, from: Upstream): void;
  /** The upstream's socket failed: its health should be checked now. */
  onSocketFailure(from: Upstream): void;
  /** The highest block height whose events were delivered so far. */
  deliveredHeight(): bigint;
  /** Subscribed again on `on` after a loss when `lostAt` was the delivered height: fill what was missed. */
  onResubscribed(on: Upstream, lostAt: bigint): void;
}

const SUBSCRIBE_TIMEOUT_MS = 10_000;

export class UpstreamSubscription {
  private readonly logger = new Logger('UpstreamSubscription');
  private socket: WebSocket | undefined;
  private upstream: Upstream | undefined;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private nextId = 1;
  /** The highest block height of an event from the current socket (its upstream's head when it subscribed, before any). */
  private lastHeight = 0n;
  /** Times this subscription moved to another upstream (metrics, tests). */
  switches = 0;

  constructor(
    readonly query: string,
    private readonly host: SubscriptionHost,
    private readonly retryMs: number,
    /** The query has an event at every height (NewBlock…): a socket that stops sending them is seen to stall. */
    private readonly everyHeight = false,
  ) {}

  get current(): Upstream | undefined {
    return this.upstream;
  }

  /** Subscribes on the best healthy upstream; rejects with the upstream's error (e.g. a bad query). */
  async open(): Promise<void> {
    const [first, ...rest] = candidates(this.host.upstreams(), {}).sort(byHeadDesc);
    if (!first) throw this.host.unavailable();
    let lastError: Error | undefined;
    for (const u of [first, ...rest]) {
      try {
        await this.connect(u);
        return;
      } catch (err) {
        if (err instanceof ApplicationError) throw err;
        lastError = err as Error;
      }
    }
    throw new ApplicationError(`cannot subscribe on any upstream: ${lastError?.message ?? 'unknown error'}`);
  }

  /**
   * Moves to another upstream when the current one is no longer healthy, or when its socket stalled:
   * its node's head is STALL_BLOCKS past the last height of an event it sent (a query with an event at
   * every height). The one left is asked last.
   */
  checkPlacement(): void {
    const u = this.upstream;
    if (this.closed || !u || this.retryTimer) return;
    const stalled = this.everyHeight && u.latestHeight >= this.lastHeight + STALL_BLOCKS;
    if (u.healthy && !stalled) return;
    const better = candidates(this.host.upstreams(), {}, new Set([u]));
    if (better.length === 0) return;
    if (u.healthy) this.logger.warn(`${u.name} sent nothing for "${this.query}" since height ${this.lastHeight} while its head reached ${u.latestHeight}: moving the subscription`);
    else this.logger.warn(`${u.name} is ${u.downReason}: moving subscription "${this.query}"`);
    const lostAt = this.host.deliveredHeight();
    this.drop();
    void this.failover(lostAt, u);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.socket = undefined;
    if (socket?.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: `unsub-${this.nextId++}`, method: 'unsubscribe', params: { query: this.query } }));
    }
    socket?.close();
    socket?.removeAllListeners();
    socket?.on('error', () => undefined);
  }

  /** `lostAt`: this connection replaces a lost one (the host is told before any event is handled). */
  private connect(u: Upstream, lostAt?: bigint): Promise<void> {
    const url = u.config.url.replace(/^http/, 'ws') + '/websocket';
    return new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(url, { handshakeTimeout: SUBSCRIBE_TIMEOUT_MS });
      const id = `gw-sub-${this.nextId++}`;
      let subscribed = false;
      const timer = setTimeout(() => fail(new Error(`no subscribe answer from ${u.name} within ${SUBSCRIBE_TIMEOUT_MS}ms`)), SUBSCRIBE_TIMEOUT_MS);
      const fail = (err: Error) => {
        clearTimeout(timer);
        socket.removeAllListeners();
        socket.on('error', () => undefined);
        socket.terminate();
        reject(err);
      };
      socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'subscribe', params: { query: this.query } })));
      socket.on('message', (raw: WebSocket.RawData) => {
        let msg: { id?: unknown; result?: { data?: { type?: string }; events?: Record<string, string[]> }; error?: { data?: unknown; message?: string } };
        try {
          msg = JSON.parse(raw.toString());
        } catch {
          return;
        }
        if (!subscribed) {
          if (msg.id !== id) return;
          clearTimeout(timer);
          if (msg.error) {
            const detail = typeof msg.error.data === 'string' ? msg.error.data : (msg.error.message ?? 'subscribe failed');
            socket.removeAllListeners();
            socket.on('error', () => undefined);
            socket.close();
            return reject(new ApplicationError(detail));
          }
          subscribed = true;
          if (this.closed) {
            socket.close();
            return resolve();
          }
          this.socket = socket;
          this.upstream = u;
          this.lastHeight = u.latestHeight;
          if (lostAt !== undefined) {
            this.switches++;
            this.host.onResubscribed(u, lostAt);
          }
          return resolve();
        }
        if (msg.error) {
          // The upstream cancelled the subscription (slow client, shutdown): subscribe elsewhere.
          this.logger.warn(`${u.name} cancelled "${this.query}": ${String(msg.error.data ?? msg.error.message)}`);
          return this.lost(socket, u);
        }
        const result = msg.result;
        if (!result?.data || !result.events) return;
        const type = result.events['tm.event']?.[0] ?? String(result.data.type ?? '').replace('tendermint/event/', '');
        const height = eventHeight(type, result.data);
        if (height !== undefined && height > this.lastHeight) this.lastHeight = height;
        this.host.onEvent({ type, data: result.data, events: result.events }, u);
      });
      socket.on('error', (err) => {
        if (!subscribed) fail(err);
      });
      socket.on('close', () => {
        if (!subscribed) return fail(new Error(`socket to ${u.name} closed before subscribing`));
        this.lost(socket, u);
      });
    });
  }

  private lost(socket: WebSocket, u: Upstream): void {
    if (this.socket !== socket || this.closed) return;
    this.logger.warn(`socket to ${u.name} lost for "${this.query}"; resubscribing`);
    const lostAt = this.host.deliveredHeight();
    this.drop();
    this.host.onSocketFailure(u);
    void this.failover(lostAt, u);
  }

  private drop(): void {
    const socket = this.socket;
    this.socket = undefined;
    this.upstream = undefined;
    socket?.removeAllListeners();
    socket?.on('error', () => undefined);
    socket?.terminate();
  }

  /** Resubscribes on another healthy upstream (the failed one last), retrying until one takes it. */
  private async failover(lostAt: bigint, failed?: Upstream): Promise<void> {
    this.retryTimer = undefined;
    if (this.closed) return;
    const healthy = candidates(this.host.upstreams(), {}).sort(byHeadDesc);
    const ordered = [...healthy.filter((u) => u !== failed), ...healthy.filter((u) => u === failed)];
    for (const u of ordered) {
      try {
        await this.connect(u, lostAt);
        if (this.closed) return;
        this.logger.log(`"${this.query}" resubscribed on ${u.name}`);
        return;
      } catch (err) {
        this.logger.warn(`resubscribing "${this.query}" on ${u.name} failed: ${(err as Error).message}`);
      }
    }
    if (!this.closed) this.retryTimer = setTimeout(() => void this.failover(lostAt, failed), this.retryMs);
  }
}

function byHeadDesc(a: Upstream, b: Upstream): number {
  return a.latestHeight === b.latestHeight ? 0 : a.latestHeight > b.latestHeight ? -1 : 1;
}
