/**
 * New EVM blocks as the EVM RPC's filters and subscriptions need them. Those read the event bus's
 * NewBlock events, and of each only the height (`data.value.block.header.height`); the block, its
 * hashes and its logs they then ask of the EvmBackend. So this follows the EVM pool's head and hands
 * every new height, in order and once, to `publish` (the WsMultiplexer, which publishes a NewBlock
 * once per height, whoever else saw it).
 *
 * The head moves with the pool's health checks (`eth_blockNumber` every health_check_interval) and,
 * sooner, with an upstream `newHeads` subscription on the first healthy upstream that has a `ws` URL
 * (moved to another, the one left asked last, when its socket drops or stalls: its node's head moved
 * STALL_BLOCKS past the last notification). Heights are published from the head seen at start-up on;
 * a jump over more than MAX_GAP blocks publishes only the last MAX_GAP.
 */
import { Logger } from '@nestjs/common';
import WebSocket from 'ws';
import { STALL_BLOCKS, type Upstream } from './upstream';
import type { UpstreamEvmConfig } from '../../config/upstream-config';
import type { UpstreamPool } from './upstream-pool';

export const MAX_GAP = 100n;

export class EvmHeadFeed {
  private readonly logger = new Logger('EvmHeadFeed');
  private last = 0n;
  private queue: Promise<void> = Promise.resolve();
  private stopHead: (() => void) | undefined;
  private socket: WebSocket | undefined;
  private socketOn: Upstream | undefined;
  /** The last block number notified on the socket (its upstream's head when it subscribed, before any). */
  private lastNotified = 0n;
  /** The upstream whose socket dropped or stalled last: asked last. */
  private left: Upstream | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = true;
  /** Heights handed on, heights skipped over a too long jump, newHeads notifications seen. */
  readonly counters = { published: 0, skipped: 0, notifications: 0 };

  constructor(
    private readonly pool: UpstreamPool,
    private readonly publish: (height: bigint) => Promise<void>,
  ) {}

  /** After the pool's first health round. */
  start(): void {
    if (this.pool.upstreams.length === 0) return;
    this.stopped = false;
    this.last = this.pool.head;
    this.stopHead = this.pool.onHead((head) => {
      this.checkStall();
      this.advance(head);
    });
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.stopHead?.();
    clearTimeout(this.retryTimer);
    this.socket?.terminate();
    this.socket = undefined;
  }

  /** The upstream whose newHeads subscription runs now (tests). */
  get subscribedTo(): string | undefined {
    return this.socketOn?.name;
  }

  /** Resolves once every height seen so far has been handed on (tests). */
  settled(): Promise<void> {
    return this.queue;
  }

  private advance(head: bigint): void {
    this.queue = this.queue.then(async () => {
      if (head <= this.last) return;
      let from = this.last + 1n;
      if (this.last === 0n) from = head;
      if (head - from + 1n > MAX_GAP) {
        const skipped = head - MAX_GAP + 1n - from;
        this.counters.skipped += Number(skipped);
        this.logger.warn(`EVM head jumped from ${this.last} to ${head}; only the last ${MAX_GAP} blocks are announced`);
        from = head - MAX_GAP + 1n;
      }
      for (let h = from; h <= head; h++) {
        try {
          await this.publish(h);
          this.counters.published++;
        } catch (err) {
          this.logger.warn(`cannot announce EVM block ${h}: ${(err as Error).message}`);
        }
        this.last = h;
      }
    });
  }

  private connect(): void {
    if (this.stopped) return;
    const withWs = this.pool.upstreams.filter((u) => (u.config as UpstreamEvmConfig).ws);
    const target = withWs.find((u) => u.healthy && u !== this.left) ?? withWs.find((u) => u.healthy) ?? withWs[0];
    if (!target) return; // no ws URL configured: the health checks' polling moves the head
    const url = (target.config as UpstreamEvmConfig).ws;
    const socket = new WebSocket(url, { handshakeTimeout: this.pool.settings.request_timeout });
    this.socket = socket;
    this.socketOn = target;
    this.lastNotified = target.latestHeight;
    socket.on('open', () => socket.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}'));
    socket.on('message', (data: WebSocket.RawData) => this.onMessage(target, data.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.socketOn = undefined;
      this.left = target;
      if (this.stopped) return;
      this.logger.warn(`newHeads subscription on ${target.name} ended; resubscribing`);
      // The poll keeps the head moving meanwhile; try again (another upstream first) after one interval.
      this.retryTimer = setTimeout(() => this.connect(), this.pool.settings.health_check_interval);
      this.retryTimer.unref();
    });
  }

  /** The socket is open, yet its node's head moved STALL_BLOCKS past the last notification: it is dropped (and replaced). */
  private checkStall(): void {
    const on = this.socketOn;
    if (!on || !this.socket || on.latestHeight < this.lastNotified + STALL_BLOCKS) return;
    this.logger.warn(`newHeads on ${on.name} sent nothing since block ${this.lastNotified} while its head reached ${on.latestHeight}`);
    this.socket.terminate();
  }

  private onMessage(from: Upstream, text: string): void {
    let message: { id?: unknown; error?: { message?: string }; method?: string; params?: { result?: { number?: string } } };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.id === 1 && message.error) {
      this.logger.warn(`${from.name} refused eth_subscribe newHeads: ${message.error.message ?? ''}`);
      this.socket?.close();
      return;
    }
    const number = message.method === 'eth_subscription' ? message.params?.result?.number : undefined;
    if (typeof number !== 'string') return;
    this.counters.notifications++;
    let height: bigint;
    try {
      height = BigInt(number);
    } catch {
      return; // not a quantity
    }
    if (from === this.socketOn && height > this.lastNotified) this.lastNotified = height;
    this.pool.observeHeight(from, height);
  }
}
