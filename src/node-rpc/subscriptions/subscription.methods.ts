import { Inject, Injectable, Optional } from '@nestjs/common';
import { NODE_BACKEND, type NodeBackend } from '../../backends/node-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { EventBus, type BusEvent } from '../../events/event-bus';
import { parseQuery, type Query } from '../../events/query';
import { nodeSubscriptionKind } from '../../metrics/label-values';
import { MetricsService } from '../../metrics/metrics.service';
import type { CallContext, NotificationPort } from '../../rpc/call-context';
import { ApplicationError } from '../../rpc/errors';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { SubscriptionCanceledError } from '../node-errors';
import { string } from '../params/codecs';
import { EventPayloads } from './event-payloads';

const MAX_QUERY_LENGTH = 512;
/** How long CometBFT waits to hand an event to a slow client's connection. */
export const SLOW_CLIENT_TIMEOUT_MS = 10_000;
/** Injection token of the slow-client timeout (tests shorten it). */
export const SLOW_CLIENT_TIMEOUT = Symbol('SLOW_CLIENT_TIMEOUT');

/**
 * subscribe / unsubscribe / unsubscribe_all over WebSocket. The subscriber is the connection (its
 * remote ip:port); events reuse the subscribe request's id, as CometBFT sends them.
 */
@Injectable()
export class SubscriptionMethods implements MethodSource {
  private readonly watched = new Set<string>();
  /** Releases of the backend's event feeds, per subscriber and normalized query. */
  private readonly feeds = new Map<string, Map<string, () => void>>();
  private readonly payloads = new EventPayloads();

  constructor(
    private readonly bus: EventBus,
    @Inject(NODE_BACKEND) private readonly backend: NodeBackend,
    private readonly config: GatewayConfigService,
    @Optional() private readonly metrics?: MetricsService,
    @Optional() @Inject(SLOW_CLIENT_TIMEOUT) private readonly slowClientTimeoutMs = SLOW_CLIENT_TIMEOUT_MS,
  ) {}

  methods(): AnyMethod[] {
    const base = { group: 'events', websocketOnly: true } as const;
    return [
      defineMethod({ ...base, name: 'subscribe', params: [param('query', string)], handler: (a, ctx) => this.subscribe(a.query, ctx) }),
      defineMethod({ ...base, name: 'unsubscribe', params: [param('query', string)], handler: (a, ctx) => this.unsubscribe(a.query, ctx) }),
      defineMethod({ ...base, name: 'unsubscribe_all', params: [], handler: (_a, ctx) => this.unsubscribeAll(ctx) }),
    ];
  }

  private async subscribe(text: string, ctx: CallContext): Promise<Record<string, never>> {
    const port = this.portOf(ctx);
    const rpc = this.config.rpc;
    const subscriber = port.subscriber;
    const subscriptions = this.bus.numClientSubscriptions(subscriber);
    // Counts WebSocket clients only: the gateway's own bus readers (EVM filters, broadcast_tx_commit)
    // must not use up the clients' allowance.
    if (subscriptions === 0 && this.feeds.size >= rpc.max_subscription_clients) {
      this.metrics?.refuse('node', 'limit', 'max_subscription_clients');
      throw new ApplicationError(`max_subscription_clients ${rpc.max_subscription_clients} reached`);
    }
    if (subscriptions >= rpc.max_subscriptions_per_client) {
      this.metrics?.refuse('node', 'limit', 'max_subscriptions_per_client');
      throw new ApplicationError(`max_subscriptions_per_client ${rpc.max_subscriptions_per_client} reached`);
    }
    const query = this.parse(text);
    const key = query.toString();
    if (this.bus.hasSubscription(subscriber, key)) throw new ApplicationError('already subscribed');
    const release = await this.backend.feedEvents(key);
    const stream = port.stream(key);
    const head = this.payloads.head(text);
    const cancelled = (reason: string) => {
      this.releaseFeed(subscriber, key);
      stream.fail(new SubscriptionCanceledError(reason));
    };
    // An event that cannot be handed over within the timeout is dropped, or, with
    // experimental_close_on_slow_client, ends the subscription (the socket stays open), as in CometBFT.
    const slow = (sent: boolean) => {
      if (sent || !rpc.experimental_close_on_slow_client || !this.bus.hasSubscription(subscriber, key)) return;
      this.bus.unsubscribe(subscriber, key);
      cancelled('slow client');
    };
    this.bus.subscribe(subscriber, query, {
      bufferSize: rpc.experimental_subscription_buffer_size,
      onEvent: (ev: BusEvent) => stream.send([head, this.payloads.tail(ev)], this.slowClientTimeoutMs)?.then(slow),
      onCancel: cancelled,
    });
    const ended = this.metrics?.subscriptionOpened('node', nodeSubscriptionKind(query));
    this.rememberFeed(subscriber, key, () => {
      release();
      ended?.();
    });
    this.watch(port);
    return {};
  }

  private unsubscribe(text: string, ctx: CallContext): Record<string, never> {
    const subscriber = this.portOf(ctx).subscriber;
    const key = this.parse(text).toString();
    this.wrap(() => this.bus.unsubscribe(subscriber, key));
    this.releaseFeed(subscriber, key);
    return {};
  }

  private unsubscribeAll(ctx: CallContext): Record<string, never> {
    const subscriber = this.portOf(ctx).subscriber;
    this.wrap(() => this.bus.unsubscribeAll(subscriber));
    this.releaseAll(subscriber);
    return {};
  }

  private parse(text: string): Query {
    if (text.length > MAX_QUERY_LENGTH) throw new ApplicationError('maximum query length exceeded');
    try {
      return parseQuery(text);
    } catch (err) {
      throw new ApplicationError(`failed to parse query: ${(err as Error).message}`);
    }
  }

  /** Bus errors (`subscription not found`, …) carry CometBFT's texts already. */
  private wrap(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      throw new ApplicationError((err as Error).message);
    }
  }

  private portOf(ctx: CallContext): NotificationPort {
    if (!ctx.notifications) throw new ApplicationError('subscriptions need a WebSocket connection');
    return ctx.notifications;
  }

  private watch(port: NotificationPort): void {
    const subscriber = port.subscriber;
    if (this.watched.has(subscriber)) return;
    this.watched.add(subscriber);
    port.onClose(() => {
      this.watched.delete(subscriber);
      if (this.bus.numClientSubscriptions(subscriber) > 0) this.bus.unsubscribeAll(subscriber);
      this.releaseAll(subscriber);
    });
  }

  private rememberFeed(subscriber: string, key: string, release: () => void): void {
    let mine = this.feeds.get(subscriber);
    if (!mine) this.feeds.set(subscriber, (mine = new Map()));
    mine.set(key, release);
  }

  private releaseFeed(subscriber: string, key: string): void {
    const mine = this.feeds.get(subscriber);
    mine?.get(key)?.();
    mine?.delete(key);
    if (mine?.size === 0) this.feeds.delete(subscriber);
  }

  private releaseAll(subscriber: string): void {
    for (const release of this.feeds.get(subscriber)?.values() ?? []) release();
    this.feeds.delete(subscriber);
  }
}
