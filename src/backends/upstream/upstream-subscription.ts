/**
 * One query subscribed on one upstream, in a place on one of the host's shared sockets (see
 * subscription-sockets.ts). When its socket drops, the upstream cancels it, its upstream turns
 * unhealthy, or (a query with an event at every height) its socket stalls, it moves to another healthy
 * upstream and subscribes again; events go to `onEvent` in arrival order.
 */
import { Logger } from '@nestjs/common';
import { ApplicationError } from '../../rpc/errors';
import { eventHeight } from './block-event-synth';
import { candidates } from './router';
import { SocketBudgetSpent, type Slot, type SlotSink, type UpstreamEvent } from './subscription-sockets';
import { STALL_BLOCKS, type Upstream } from './upstream';

export type { UpstreamEvent } from './subscription-sockets';

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
  /** A place for `query` on one of `u`'s shared sockets (SubscriptionSockets.attach). */
  attach(u: Upstream, query: string, sink: SlotSink): Promise<Slot>;
  /** What a client reads when no upstream has room for another subscription. */
  budgetSpent(): Error;
}

export class UpstreamSubscription {
  private readonly logger = new Logger('UpstreamSubscription');
  private slot: Slot | undefined;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The highest block height of an event from the current slot (its upstream's head when it subscribed, before any). */
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
    return this.slot?.upstream;
  }

  /**
   * Subscribes on the best healthy upstream with room; rejects with the upstream's error (e.g. a bad
   * query), or the host's budget error when no upstream has room.
   */
  async open(): Promise<void> {
    const [first, ...rest] = candidates(this.host.upstreams(), {}).sort(byHeadDesc);
    if (!first) throw this.host.unavailable();
    let lastError: Error | undefined;
    let spent = 0;
    for (const u of [first, ...rest]) {
      try {
        await this.connect(u);
        return;
      } catch (err) {
        if (err instanceof ApplicationError) throw err;
        if (err instanceof SocketBudgetSpent) spent++;
        lastError = err as Error;
      }
    }
    if (spent === rest.length + 1) throw this.host.budgetSpent();
    throw new ApplicationError(`cannot subscribe on any upstream: ${lastError?.message ?? 'unknown error'}`);
  }

  /**
   * Moves to another upstream when the current one is no longer healthy, or when its socket stalled:
   * its node's head is STALL_BLOCKS past the last height of an event it sent (a query with an event at
   * every height); a stalled socket is ended, so every query on it moves. The one left is asked last.
   */
  checkPlacement(): void {
    const slot = this.slot;
    const u = slot?.upstream;
    if (this.closed || !slot || !u || this.retryTimer) return;
    const stalled = this.everyHeight && u.latestHeight >= this.lastHeight + STALL_BLOCKS;
    if (u.healthy && !stalled) return;
    const better = candidates(this.host.upstreams(), {}, new Set([u]));
    if (better.length === 0) return;
    if (u.healthy) {
      this.logger.warn(`${u.name} sent nothing for "${this.query}" since height ${this.lastHeight} while its head reached ${u.latestHeight}: moving the subscription`);
      return slot.fail(`stalled: nothing for "${this.query}" since height ${this.lastHeight}`);
    }
    this.logger.warn(`${u.name} is ${u.downReason}: moving subscription "${this.query}"`);
    const lostAt = this.host.deliveredHeight();
    this.drop();
    void this.failover(lostAt, u);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.drop();
  }

  /** `lostAt`: this subscription replaces a lost one (the host is told before any event is handled). */
  private async connect(u: Upstream, lostAt?: bigint): Promise<void> {
    let mine: Slot | undefined;
    const sink: SlotSink = {
      onSubscribed: (slot) => {
        mine = slot;
        if (this.closed) return slot.release();
        this.slot = slot;
        this.lastHeight = u.latestHeight;
        if (lostAt !== undefined) {
          this.switches++;
          this.host.onResubscribed(u, lostAt);
        }
      },
      onEvent: (event) => {
        if (this.slot !== mine || this.closed) return;
        const height = eventHeight(event.type, event.data);
        if (height !== undefined && height > this.lastHeight) this.lastHeight = height;
        this.host.onEvent(event, u);
      },
      onLost: (reason) => {
        if (mine && this.slot === mine) this.lost(u, reason);
      },
    };
    await this.host.attach(u, this.query, sink);
  }

  private lost(u: Upstream, reason: string): void {
    if (this.closed) return;
    this.logger.warn(`"${this.query}" lost on ${u.name} (${reason}); resubscribing`);
    const lostAt = this.host.deliveredHeight();
    // Gives the place back (a cancelled subscription's socket stays open for the others).
    this.drop();
    this.host.onSocketFailure(u);
    void this.failover(lostAt, u);
  }

  private drop(): void {
    const slot = this.slot;
    this.slot = undefined;
    slot?.release();
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
