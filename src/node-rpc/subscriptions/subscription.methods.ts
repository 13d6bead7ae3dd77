import { Inject, Injectable, Optional } from '@nestjs/common';
import { AccessService } from '../../access/access.service';
import { BACKEND_SERVICES, type BackendServices } from '../../backends/backend-services';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { EventBus, type BusEvent } from '../../events/event-bus';
import { parseQuery, type Query } from '../../events/query';
import { nodeSubscriptionKind } from '../../metrics/label-values';
import { MetricsService } from '../../metrics/metrics.service';
import type { CallContext, NotificationPort } from '../../rpc/call-context';
import { ApplicationError } from '../../rpc/errors';
import type { Json } from '../../rpc/json';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { SubscriptionCanceledError } from '../node-errors';
import { string } from '../params/codecs';
import { queryCaps } from '../query-caps';
import { EventPayloads } from './event-payloads';

/** What a subscription holds until it ends: its backend feed, its metrics count, its per-IP place. */
interface Hold {
  release: () => void;
}
/** A subscription admitted and held: its connection, its query, what it holds. */
interface Admitted {
  readonly port: NotificationPort;
  readonly subscriber: string;
  readonly query: Query;
  readonly key: string;
  readonly hold: Hold;
  readonly place: () => void;
}
/**
 * What starts a pushed subscription's source: given how to send a result (resolves as the connection's
 * send does) and how to cancel the subscription with a reason, it returns what stops the source.
 */
export type NodeSubscriptionStart = (send: (result: Json) => Promise<boolean> | undefined, cancel: (reason: string) => void) => () => void;
/** How long CometBFT waits to hand an event to a slow client's connection. */
export const SLOW_CLIENT_TIMEOUT_MS = 10_000;
/** Injection token of the slow-client timeout (tests shorten it). */
export const SLOW_CLIENT_TIMEOUT = Symbol('SLOW_CLIENT_TIMEOUT');

/**
 * subscribe / unsubscribe / unsubscribe_all over WebSocket. The subscriber is the connection (its
 * remote ip:port); events reuse the subscribe request's id, as CometBFT sends them. Every limit is
 * checked and its place taken before the first await, so subscribes pipelined on one connection (or
 * many) can never pass it together.
 */
@Injectable()
export class SubscriptionMethods implements MethodSource {
  private readonly watched = new Set<string>();
  /** Per subscriber, per normalized query: what each subscription holds, from its admission on. */
  private readonly held = new Map<string, Map<string, Hold>>();
  private readonly payloads = new EventPayloads();

  constructor(
    private readonly bus: EventBus,
    @Inject(BACKEND_SERVICES) private readonly backend: BackendServices,
    private readonly config: GatewayConfigService,
    @Optional() private readonly metrics?: MetricsService,
    @Optional() @Inject(SLOW_CLIENT_TIMEOUT) private readonly slowClientTimeoutMs = SLOW_CLIENT_TIMEOUT_MS,
    @Optional() private readonly access?: AccessService,
  ) {}

  methods(): AnyMethod[] {
    const base = { group: 'events', websocketOnly: true } as const;
    return [
      defineMethod({ ...base, name: 'subscribe', params: [param('query', string)], prepare: queryCaps, handler: (a, ctx) => this.subscribe(a.query, ctx) }),
      defineMethod({ ...base, name: 'unsubscribe', params: [param('query', string)], handler: (a, ctx) => this.unsubscribe(a.query, ctx) }),
      defineMethod({ ...base, name: 'unsubscribe_all', params: [], handler: (_a, ctx) => this.unsubscribeAll(ctx) }),
    ];
  }

  /**
   * Admits a subscription of the caller's connection to `text` as every subscription is admitted (the
   * client caps, `already subscribed`, the per-IP place), held from here on.
   */
  private admit(text: string, ctx: CallContext): Admitted {
    const port = this.portOf(ctx);
    const rpc = this.config.rpc;
    const subscriber = port.subscriber;
    const mine = this.held.get(subscriber);
    const subscriptions = mine?.size ?? 0;
    // Counts WebSocket clients only: the gateway's own bus readers (EVM filters, broadcast_tx_commit)
    // must not use up the clients' allowance.
    if (subscriptions === 0 && this.held.size >= rpc.max_subscription_clients) {
      this.metrics?.refuse('node', 'limit', 'max_subscription_clients');
      throw new ApplicationError(`max_subscription_clients ${rpc.max_subscription_clients} reached`);
    }
    if (subscriptions >= rpc.max_subscriptions_per_client) {
      this.metrics?.refuse('node', 'limit', 'max_subscriptions_per_client');
      throw new ApplicationError(`max_subscriptions_per_client ${rpc.max_subscriptions_per_client} reached`);
    }
    const query = this.parse(text);
    const key = query.toString();
    if (mine?.has(key) || this.bus.hasSubscription(subscriber, key)) throw new ApplicationError('already subscribed');
    const place = this.access?.placeFor('node', 'subscriptions', ctx.caller?.ip) ?? NO_PLACE;
    // Held from here on: the next subscribe, pipelined behind this one, counts it.
    const hold: Hold = { release: place };
    this.hold(subscriber, key, hold);
    this.watch(port);
    return { port, subscriber, query, key, hold, place };
  }

  /**
   * A subscription whose events another source pushes (a plugin's), admitted and counted as `subscribe`'s:
   * `start` gets how to send a result (the notification's `result`) and how to cancel the subscription,
   * and returns what stops its source; `unsubscribe` of the same query, `unsubscribe_all` and the
   * connection's close stop it. Returns the normalized query.
   */
  open(ctx: CallContext, text: string, start: NodeSubscriptionStart): string {
    const { port, subscriber, query, key, hold, place } = this.admit(text, ctx);
    const stream = port.stream(key);
    const ended = this.metrics?.subscriptionOpened('node', nodeSubscriptionKind(query));
    let stop: () => void = NO_PLACE;
    hold.release = () => {
      stop();
      ended?.();
      place();
    };
    const cancel = (reason: string) => {
      if (this.held.get(subscriber)?.get(key) !== hold) return;
      this.releaseFeed(subscriber, key);
      stream.fail(new SubscriptionCanceledError(reason));
    };
    try {
      stop = start((result) => stream.send(JSON.stringify(result), this.slowClientTimeoutMs), cancel);
    } catch (err) {
      this.releaseFeed(subscriber, key);
      throw err;
    }
    return key;
  }

  private async subscribe(text: string, ctx: CallContext): Promise<Record<string, never>> {
    const { port, subscriber, query, key, hold, place } = this.admit(text, ctx);
    const rpc = this.config.rpc;
    let release: () => void;
    try {
      release = await this.backend.feedEvents(key);
    } catch (err) {
      this.releaseFeed(subscriber, key);
      throw err;
    }
    if (this.held.get(subscriber)?.get(key) !== hold) {
      // The connection closed (or the query was unsubscribed) while the feed was being set up.
      release();
      throw new ApplicationError('subscription was canceled (reason: client gone)');
    }
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
    const ended = this.metrics?.subscriptionOpened('node', nodeSubscriptionKind(query));
    hold.release = () => {
      release();
      ended?.();
      place();
    };
    try {
      this.bus.subscribe(subscriber, query, {
        bufferSize: rpc.experimental_subscription_buffer_size,
        onEvent: (ev: BusEvent) => stream.send([head, this.payloads.tail(ev)], this.slowClientTimeoutMs)?.then(slow),
        onCancel: cancelled,
      });
    } catch (err) {
      this.releaseFeed(subscriber, key);
      throw err;
    }
    return {};
  }


  private unsubscribe(text: string, ctx: CallContext): Record<string, never> {
    const subscriber = this.portOf(ctx).subscriber;
    const key = this.parse(text).toString();
    // A pushed subscription (open) is held without a bus subscription.
    if (this.bus.hasSubscription(subscriber, key) || !this.held.get(subscriber)?.has(key)) this.wrap(() => this.bus.unsubscribe(subscriber, key));
    this.releaseFeed(subscriber, key);
    return {};
  }

  private unsubscribeAll(ctx: CallContext): Record<string, never> {
    const subscriber = this.portOf(ctx).subscriber;
    if (this.bus.numClientSubscriptions(subscriber) > 0 || !this.held.has(subscriber)) this.wrap(() => this.bus.unsubscribeAll(subscriber));
    this.releaseAll(subscriber);
    return {};
  }

  private parse(text: string): Query {
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

  private hold(subscriber: string, key: string, hold: Hold): void {
    let mine = this.held.get(subscriber);
    if (!mine) this.held.set(subscriber, (mine = new Map()));
    mine.set(key, hold);
  }

  private releaseFeed(subscriber: string, key: string): void {
    const mine = this.held.get(subscriber);
    const hold = mine?.get(key);
    mine?.delete(key);
    if (mine?.size === 0) this.held.delete(subscriber);
    hold?.release();
  }

  private releaseAll(subscriber: string): void {
    const mine = this.held.get(subscriber);
    this.held.delete(subscriber);
    for (const hold of mine?.values() ?? []) hold.release();
  }
}

const NO_PLACE = (): void => undefined;
