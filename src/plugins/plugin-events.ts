import type { BackendServices } from '../backends/backend-services';
import type { BusEvent, EventBus } from '../events/event-bus';
import { parseQuery, type Query } from '../events/query';

/**
 * The event bus as a plugin sees it (`ctx.events`). Subscribing also makes the backend feed the query
 * (in upstream mode one shared upstream subscription per query, as clients' subscriptions get), so a
 * plugin receives its events whether or not a client subscribed to the same query. Where the backend
 * cannot feed a query (an EVM-only pool has no node to subscribe to), the events that reach the bus
 * anyway still arrive: the EVM pool's new blocks as NewBlock events.
 */
export interface PluginEvents {
  /**
   * Calls `onEvent` for every event matching `query` (a query text or `parseQuery`'s result) until the
   * returned function is called; `bufferSize` events may wait while `onEvent` is busy (default 100).
   */
  subscribe(query: Query | string, onEvent: (event: BusEvent) => void | PromiseLike<unknown>, options?: { readonly bufferSize?: number }): Promise<() => void>;
  /** The first event matching `query`, within `timeoutMs`. */
  once(query: Query | string, timeoutMs: number): Promise<BusEvent>;
}

export function pluginEvents(plugin: string, bus: EventBus, backend: Pick<BackendServices, 'feedEvents'>): PluginEvents {
  let next = 0;
  const fed = async (query: Query): Promise<() => void> => {
    try {
      return await backend.feedEvents(query.toString());
    } catch {
      return () => undefined;
    }
  };
  return {
    async subscribe(text, onEvent, options = {}) {
      const query = typeof text === 'string' ? parseQuery(text) : text;
      const subscriber = `plugin ${plugin}#${++next}`;
      const release = await fed(query);
      bus.subscribe(subscriber, query, { bufferSize: options.bufferSize ?? 100, onEvent, onCancel: () => release() });
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        if (bus.hasSubscription(subscriber, query)) bus.unsubscribe(subscriber, query);
        release();
      };
    },
    async once(text, timeoutMs) {
      const query = typeof text === 'string' ? parseQuery(text) : text;
      const release = await fed(query);
      try {
        return await bus.once(query, timeoutMs, { subscriber: `plugin ${plugin}#${++next}` });
      } finally {
        release();
      }
    },
  };
}
