import { EventTimeoutError, OUT_OF_CAPACITY, SubscriptionCanceledError } from './bus-errors';
import type { EventMap, Query } from './query';
import { SubscriptionQueue } from './subscription-queue';

/** One published event, shared by every subscription it matches. */
export interface BusEvent {
  /** The tm.event value, e.g. 'NewBlock'. */
  readonly type: string;
  /** The wire-encoded {type, value} object. */
  readonly data: unknown;
  /** Composite key → values; includes 'tm.event'. */
  readonly events: EventMap;
}

export interface SubscribeOptions {
  /** The most undelivered events a subscription keeps; one more cancels it. */
  readonly bufferSize: number;
  /**
   * Receives the subscription's events in order. While a returned promise is pending the next events
   * wait in the buffer. A throw or a rejection loses only that event, as a failed write does in CometBFT.
   */
  onEvent(event: BusEvent): void | PromiseLike<unknown>;
  /** Called once, asynchronously, when the bus cancels the subscription; not on unsubscribe. */
  onCancel(reason: string): void;
}

export interface Subscription {
  readonly subscriber: string;
  readonly query: Query;
}

interface Route {
  readonly query: Query;
  readonly subscriptions: Set<SubscriptionQueue>;
}

export interface OnceOptions {
  /** Whose subscription this is, counted like any other; a private name by default. */
  readonly subscriber?: string;
  /** Aborting rejects with the signal's reason and unsubscribes. */
  readonly signal?: AbortSignal;
}

/**
 * In-process pub/sub with CometBFT's pubsub semantics. Publishing never waits on subscribers: each
 * subscription has its own bounded buffer and delivery loop, and one that overflows is cancelled.
 */
export class EventBus {
  /** subscriber → normalized query → subscription: what limits and "already subscribed" look at. */
  private readonly clients = new Map<string, Map<string, SubscriptionQueue>>();
  /** normalized query → the live subscriptions it feeds, so that each query is matched once per event. */
  private readonly routes = new Map<string, Route>();
  private closed = false;
  private onceCount = 0;

  publish(event: BusEvent): void {
    if (this.closed) return;
    for (const [key, route] of this.routes) {
      if (!route.query.matches(event.events)) continue;
      for (const subscription of route.subscriptions) {
        if (subscription.offer(event)) continue;
        // As in CometBFT, the client stays registered: the query still counts toward its limits and
        // subscribing to it again says "already subscribed" until the client unsubscribes.
        this.detach(key, subscription);
        subscription.stop(OUT_OF_CAPACITY);
      }
    }
  }

  subscribe(subscriber: string, query: Query, options: SubscribeOptions): Subscription {
    if (this.closed) throw new Error('service is shutting down');
    if (!Number.isInteger(options.bufferSize) || options.bufferSize < 1) {
      throw new RangeError(`bufferSize must be a positive integer, got ${options.bufferSize}`);
    }
    const key = query.toString();
    let registered = this.clients.get(subscriber);
    if (registered?.has(key)) throw new Error('already subscribed');

    const subscription = new SubscriptionQueue(subscriber, query, options);
    if (registered === undefined) {
      registered = new Map();
      this.clients.set(subscriber, registered);
    }
    registered.set(key, subscription);
    let route = this.routes.get(key);
    if (route === undefined) {
      route = { query, subscriptions: new Set() };
      this.routes.set(key, route);
    }
    route.subscriptions.add(subscription);
    return subscription;
  }

  /** A string query is taken as a normalized query, Query.toString(). */
  unsubscribe(subscriber: string, query: Query | string): void {
    const subscription = this.clients.get(subscriber)?.get(normalize(query));
    if (subscription === undefined) throw new Error('subscription not found');
    this.release(subscription);
  }

  unsubscribeAll(subscriber: string): void {
    const registered = this.clients.get(subscriber);
    if (registered === undefined) throw new Error('subscription not found');
    for (const subscription of [...registered.values()]) this.release(subscription);
  }

  numClients(): number {
    return this.clients.size;
  }

  numClientSubscriptions(subscriber: string): number {
    return this.clients.get(subscriber)?.size ?? 0;
  }

  hasSubscription(subscriber: string, query: Query | string): boolean {
    return this.clients.get(subscriber)?.has(normalize(query)) ?? false;
  }

  /** Cancels every subscription with the reason (e.g. 'CometBFT exited'); later subscribes fail. */
  close(reason: string): void {
    this.closed = true;
    for (const route of this.routes.values()) {
      for (const subscription of route.subscriptions) subscription.stop(reason);
    }
    this.routes.clear();
    this.clients.clear();
  }

  /**
   * The first event matching the query, e.g. the Tx event broadcast_tx_commit waits for. The
   * subscription exists once this returns, so call it before causing the event. Rejects with
   * SubscriptionCanceledError, EventTimeoutError, the abort reason, or a subscribe error.
   */
  once(query: Query, timeoutMs: number, options: OnceOptions = {}): Promise<BusEvent> {
    const { subscriber = `once#${++this.onceCount}`, signal } = options;
    return new Promise<BusEvent>((resolve, reject) => {
      signal?.throwIfAborted();
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.release(subscription);
        settle();
      };
      const subscription = this.subscribe(subscriber, query, {
        // Released on the first delivery, so it only ever holds one synchronous burst of events.
        bufferSize: Number.MAX_SAFE_INTEGER,
        onEvent: (event) => finish(() => resolve(event)),
        onCancel: (reason) => finish(() => reject(new SubscriptionCanceledError(reason))),
      });
      const timer = setTimeout(() => finish(() => reject(new EventTimeoutError(timeoutMs))), timeoutMs);
      const onAbort = (): void => finish(() => reject(signal?.reason));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Removes the subscription if it is still registered, and stops it without telling onCancel. */
  private release(subscription: Subscription): void {
    const key = subscription.query.toString();
    const registered = this.clients.get(subscription.subscriber);
    const registeredSubscription = registered?.get(key);
    if (registered === undefined || registeredSubscription !== subscription) return;
    registered.delete(key);
    if (registered.size === 0) this.clients.delete(subscription.subscriber);
    this.detach(key, registeredSubscription);
    registeredSubscription.stop();
  }

  private detach(key: string, subscription: SubscriptionQueue): void {
    const route = this.routes.get(key);
    if (route === undefined) return;
    route.subscriptions.delete(subscription);
    if (route.subscriptions.size === 0) this.routes.delete(key);
  }
}

function normalize(query: Query | string): string {
  return typeof query === 'string' ? query : query.toString();
}
