/**
 * Shares upstream subscriptions between clients: every client subscribed to the same query is fed by
 * one upstream subscription, whose events are published once on the event bus. A head subscription
 * (NewBlockHeader) runs while any query without an event at every height does, so a height gap after
 * an upstream switch is seen and filled from `block` + `block_results`; copies of an event (overlapping
 * queries, an upstream replaying heights the previous one sent) are published once.
 *
 * The upstream subscriptions share sockets within a budget (`[upstream] max_subscription_clients`
 * sockets per upstream, `max_subscriptions_per_client` subscriptions per socket): at most that many
 * distinct queries, the head query included, are fed at once, so all of them fit on any one upstream
 * after a failover. A client query past it gets CometBFT's own `max_subscription_clients N reached`.
 */
import { Logger } from '@nestjs/common';
import type { BusEvent, EventBus } from '../../events';
import { block as blockMethod, block_results, status } from '../../node-rpc/definitions';
import { ApplicationError } from '../../rpc/errors';
import type { Invoker } from '../../rpc/invoker';
import { eventHeight, eventIdentity, heightOnlyNewBlock, synthesizeBlockEvents } from './block-event-synth';
import type { Upstream } from './upstream';
import type { UpstreamPool } from './upstream-pool';
import { SubscriptionSockets, type Slot, type SlotSink } from './subscription-sockets';
import { UpstreamSubscription, type SubscriptionHost, type UpstreamEvent } from './upstream-subscription';

const HEAD_QUERY = "tm.event = 'NewBlockHeader'";
/** Queries with one event at every height: a feed of one sees each height and needs no head feed. */
const PER_BLOCK_QUERIES = new Set([HEAD_QUERY, "tm.event = 'NewBlock'", "tm.event = 'NewBlockEvents'"]);
/** Event identities remembered for dedup. */
const SEEN_LIMIT = 20_000;
/** Larger gaps are not filled; a warning is logged (see docs/upstream.md). */
const MAX_BACKFILL = 100n;

interface Feed {
  readonly subscription: UpstreamSubscription;
  refs: number;
  readonly ready: Promise<void>;
}

export class WsMultiplexer implements SubscriptionHost {
  private readonly logger = new Logger('WsMultiplexer');
  private readonly feeds = new Map<string, Feed>();
  private readonly seen = new Set<string>();
  private readonly sockets = new SubscriptionSockets(() => ({
    clients: this.pool.settings.max_subscription_clients,
    perClient: this.pool.settings.max_subscriptions_per_client,
  }));
  /** Highest block height whose events were published (0 until the first). */
  private lastHeight = 0n;
  /** Events are handled one at a time, so a backfill keeps heights in order. */
  private queue: Promise<void> = Promise.resolve();
  private placementTimer: NodeJS.Timeout | undefined;
  /** Events published, copies dropped, events rebuilt by backfill, gaps left unfilled. */
  readonly counters = { published: 0, duplicates: 0, backfilled: 0, gaps: 0 };

  constructor(
    private readonly pool: UpstreamPool,
    private readonly bus: EventBus,
    /** The node RPC over `pool`, for the blocks a gap or an EVM head needs rebuilt. */
    private readonly node: Invoker,
  ) {}

  start(): void {
    this.placementTimer = setInterval(() => {
      for (const f of this.feeds.values()) f.subscription.checkPlacement();
    }, this.pool.settings.health_check_interval);
    this.placementTimer.unref();
  }

  stop(): void {
    clearInterval(this.placementTimer);
    for (const f of this.feeds.values()) f.subscription.close();
    this.feeds.clear();
    this.sockets.closeAll();
  }

  /** Subscription sockets open now, per upstream name: the subscriptions on each (metrics, tests). */
  socketUsage(): Record<string, number[]> {
    return this.sockets.usage();
  }

  /** Upstream subscriptions open now (metrics, tests). */
  subscriptions(): UpstreamSubscription[] {
    return [...this.feeds.values()].map((f) => f.subscription);
  }

  /** Feeds `query` (normalized) to the bus until every returned release has been called. */
  async feed(query: string): Promise<() => void> {
    // Without a head feed (the upstream refused it) gaps show only in the query's own heights; only a
    // head feed that was had is given back.
    const withHead = !PER_BLOCK_QUERIES.has(query) && (await this.acquire(HEAD_QUERY).then(() => true, () => false));
    try {
      await this.acquire(query);
    } catch (err) {
      if (withHead) this.release(HEAD_QUERY);
      throw err;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(query);
      if (withHead) this.release(HEAD_QUERY);
    };
  }

  upstreams(): readonly Upstream[] {
    return this.pool.upstreams;
  }

  unavailable(): Error {
    return this.pool.unavailable();
  }

  attach(u: Upstream, query: string, sink: SlotSink): Promise<Slot> {
    return this.sockets.attach(u, query, sink);
  }

  budgetSpent(): Error {
    return new ApplicationError(`max_subscription_clients ${this.pool.settings.max_subscription_clients} reached`);
  }

  onSocketFailure(from: Upstream): void {
    void this.pool.checkHealth().catch(() => undefined);
    this.logger.warn(`upstream ${from.name} socket failed`);
  }

  deliveredHeight(): bigint {
    return this.lastHeight;
  }

  onResubscribed(on: Upstream, lostAt: bigint): void {
    if (lostAt === 0n) return;
    this.queue = this.queue
      .then(async () => {
        // Everything up to the new upstream's head when it took the subscription may have been missed.
        const { result } = await on.client.call(status.name, {}, this.pool.settings.request_timeout);
        const head = BigInt(String((result as { sync_info?: { latest_block_height?: string } }).sync_info?.latest_block_height ?? '0'));
        this.pool.observeHeight(on, head);
        if (head > lostAt) await this.backfill(lostAt + 1n, head);
      })
      .catch((err) => this.logger.warn(`cannot fill the events missed while resubscribing: ${(err as Error).message}`));
  }

  onEvent(event: UpstreamEvent, from: Upstream): void {
    this.queue = this.queue.then(() => this.handle(event, from)).catch((err) => this.logger.error(`event handling failed: ${(err as Error).message}`));
  }

  /**
   * A block the EVM pool has seen (see evm-head-feed.ts): its events are published once, in the order
   * of this multiplexer's other events. With node upstreams (the same chain: Evmos's EVM block H is
   * CometBFT block H) they are the real ones, rebuilt from `block` + `block_results`, so a node-RPC
   * subscriber cannot tell where they came from; without any, only a NewBlock carrying the height,
   * which is all the EVM feed reads (no node-RPC subscription can exist then).
   */
  publishBlock(height: bigint): Promise<void> {
    const run = this.queue.then(async () => {
      if (this.seen.has(`NewBlock:${height}`)) return;
      if (this.pool.upstreams.length === 0) {
        this.publish(heightOnlyNewBlock(height));
        return;
      }
      for (const e of await this.eventsAt(height)) this.publish(e);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async acquire(query: string): Promise<void> {
    let feed = this.feeds.get(query);
    if (!feed) {
      const { max_subscription_clients: clients, max_subscriptions_per_client: perClient } = this.pool.settings;
      if (this.feeds.size >= clients * perClient) throw this.budgetSpent();
      const subscription = new UpstreamSubscription(query, this, this.pool.settings.health_check_interval, PER_BLOCK_QUERIES.has(query));
      const ready = subscription.open();
      feed = { subscription, refs: 0, ready };
      this.feeds.set(query, feed);
      ready.catch(() => {
        if (this.feeds.get(query) === feed) this.feeds.delete(query);
      });
    }
    feed.refs++;
    try {
      await feed.ready;
    } catch (err) {
      feed.refs--;
      throw err;
    }
  }

  private release(query: string): void {
    const feed = this.feeds.get(query);
    if (!feed || --feed.refs > 0) return;
    this.feeds.delete(query);
    feed.subscription.close();
    // With nothing subscribed, the next subscription starts afresh: no gap to fill from before it.
    if (this.feeds.size === 0) this.lastHeight = 0n;
  }

  private async handle(event: UpstreamEvent, from: Upstream): Promise<void> {
    const height = eventHeight(event.type, event.data);
    if (height !== undefined) {
      this.pool.observeHeight(from, height);
      if (this.lastHeight > 0n && height > this.lastHeight + 1n) await this.backfill(this.lastHeight + 1n, height - 1n);
      if (height > this.lastHeight) this.lastHeight = height;
    }
    this.publish(event);
  }

  private async backfill(from: bigint, to: bigint): Promise<void> {
    if (to - from + 1n > MAX_BACKFILL) {
      this.counters.gaps++;
      this.logger.warn(`event gap ${from}..${to} is larger than ${MAX_BACKFILL} blocks; not filled`);
      return;
    }
    for (let h = from; h <= to; h++) {
      try {
        for (const e of await this.eventsAt(h)) {
          if (this.publish(e)) this.counters.backfilled++;
        }
        if (h > this.lastHeight) this.lastHeight = h;
      } catch (err) {
        this.counters.gaps++;
        this.logger.warn(`cannot fill the event gap at height ${h}: ${(err as Error).message}`);
      }
    }
  }

  /** The events of block `height`, rebuilt from `block` and `block_results`. */
  private async eventsAt(height: bigint): Promise<BusEvent[]> {
    const [block, results] = await Promise.all([this.node.invoke(blockMethod, { height }), this.node.invoke(block_results, { height })]);
    return synthesizeBlockEvents(block, results);
  }

  /** Publishes an event the first time it is seen; false for a copy. */
  private publish(event: BusEvent): boolean {
    const id = eventIdentity(event);
    if (this.seen.has(id)) {
      this.counters.duplicates++;
      return false;
    }
    this.seen.add(id);
    if (this.seen.size > SEEN_LIMIT) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    this.counters.published++;
    this.bus.publish(event);
    return true;
  }
}
