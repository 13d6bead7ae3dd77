/**
 * The upstream subscription sockets of one multiplexer, shared by its queries: a socket to an
 * upstream's `/websocket` carries up to `max_subscriptions_per_client` subscriptions (CometBFT: 5 by
 * default), and at most `max_subscription_clients` sockets are open to one upstream (CometBFT refuses
 * everyone past its own `max_subscription_clients`, 100 by default, its direct subscribers included).
 * A socket opens with its first subscription and closes with its last. Events are routed by the
 * subscribe request's id, which CometBFT repeats in every event of that subscription.
 */
import WebSocket from 'ws';
import { ApplicationError } from '../../rpc/errors';
import type { Upstream } from './upstream';

export interface UpstreamEvent {
  readonly type: string;
  readonly data: unknown;
  readonly events: Record<string, string[]>;
}

/** What a socket tells the one subscription that holds a slot on it. */
export interface SlotSink {
  /** Subscribed: called before any event of the subscription is handed over. */
  onSubscribed(slot: Slot): void;
  onEvent(event: UpstreamEvent): void;
  /** The socket closed, or the upstream cancelled the subscription (`reason`): it is gone. */
  onLost(reason: string): void;
}

/** One subscription on a shared socket. */
export interface Slot {
  readonly upstream: Upstream;
  /** Unsubscribes; the socket closes with its last subscription. */
  release(): void;
  /** Ends the whole socket (it stalled): every subscription on it is lost. */
  fail(reason: string): void;
}

export interface SocketBudget {
  /** Most sockets open to one upstream. */
  readonly clients: number;
  /** Most subscriptions on one socket. */
  readonly perClient: number;
}

/** The budget of sockets to this upstream is spent, or the upstream takes no more subscriptions. */
export class SocketBudgetSpent extends Error {}

const TIMEOUT_MS = 10_000;
const PER_CLIENT_REACHED = /^max_subscriptions_per_client \d+ reached$/;
const CLIENTS_REACHED = /^max_subscription_clients \d+ reached$/;

interface EventMessage {
  id?: unknown;
  result?: { query?: unknown; data?: { type?: string }; events?: Record<string, string[]> };
  error?: { data?: unknown; message?: string };
}

interface Pending {
  readonly query: string;
  readonly sink: SlotSink;
  readonly resolve: (slot: Slot) => void;
  readonly reject: (err: Error) => void;
}

/** One WebSocket to one upstream and the subscriptions on it. */
class SharedSocket {
  private readonly ws: WebSocket;
  private readonly opened: Promise<void>;
  private readonly subscribed = new Map<string, { query: string; sink: SlotSink }>();
  private readonly pending = new Map<string, Pending>();
  /** Places taken: subscribed, being subscribed, or waiting for the socket to open. */
  places = 0;
  /** Lowered when the upstream says its per-client limit is lower than the budget's. */
  capacity: number;
  closed = false;
  private nextId = 1;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly upstream: Upstream,
    capacity: number,
    private readonly onClosed: (socket: SharedSocket) => void,
  ) {
    this.capacity = capacity;
    this.ws = new WebSocket(upstream.config.url.replace(/^http/, 'ws') + '/websocket', { handshakeTimeout: TIMEOUT_MS });
    this.opened = new Promise<void>((resolve, reject) => {
      this.ws.once('open', resolve);
      this.ws.once('close', () => reject(new Error(`socket to ${upstream.name} closed before subscribing`)));
    });
    this.opened.catch(() => undefined);
    this.ws.on('error', () => undefined);
    this.ws.on('close', () => this.fail(`socket to ${upstream.name} closed`));
    this.ws.on('message', (raw: WebSocket.RawData) => this.receive(raw));
  }

  get size(): number {
    return this.subscribed.size;
  }

  /** Subscribes `query` (a place was taken for it); resolves once the upstream accepted it. */
  async subscribe(query: string, sink: SlotSink): Promise<Slot> {
    await this.opened;
    if (this.closed) throw new Error(`socket to ${this.upstream.name} closed before subscribing`);
    const id = `gw-sub-${this.nextId++}`;
    return new Promise<Slot>((resolve, reject) => {
      this.pending.set(id, { query, sink, resolve, reject });
      this.armTimer();
      this.send({ jsonrpc: '2.0', id, method: 'subscribe', params: { query } });
    });
  }

  /** Ends the socket: pending subscribes fail, subscriptions are lost. */
  fail(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.ws.removeAllListeners('message');
    this.ws.terminate();
    this.onClosed(this);
    for (const p of this.pending.values()) p.reject(new Error(reason));
    this.pending.clear();
    const lost = [...this.subscribed.values()];
    this.subscribed.clear();
    for (const s of lost) s.sink.onLost(reason);
  }

  /** Gives a place back; the socket closes when none is left. */
  unplace(): void {
    if (--this.places > 0 || this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.onClosed(this);
    this.ws.removeAllListeners('message');
    this.ws.removeAllListeners('close');
    if (this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
    else this.ws.close();
  }

  private receive(raw: WebSocket.RawData): void {
    let msg: EventMessage;
    try {
      msg = JSON.parse(raw.toString()) as EventMessage;
    } catch {
      return;
    }
    const id = typeof msg.id === 'string' ? msg.id : '';
    const pending = this.pending.get(id);
    if (pending) return this.answered(id, pending, msg);
    const sub = this.subscribed.get(id) ?? this.byQuery(msg.result?.query);
    if (!sub) return;
    if (msg.error) {
      // The upstream cancelled the subscription (slow client, shutdown); the socket may stay open.
      this.subscribed.delete(id);
      return sub.sink.onLost(`cancelled: ${String(msg.error.data ?? msg.error.message)}`);
    }
    const result = msg.result;
    if (!result?.data || !result.events) return;
    const type = result.events['tm.event']?.[0] ?? String(result.data.type ?? '').replace('tendermint/event/', '');
    sub.sink.onEvent({ type, data: result.data, events: result.events });
  }

  private answered(id: string, pending: Pending, msg: EventMessage): void {
    this.pending.delete(id);
    this.armTimer();
    if (msg.error) {
      const detail = typeof msg.error.data === 'string' ? msg.error.data : (msg.error.message ?? 'subscribe failed');
      if (PER_CLIENT_REACHED.test(detail)) {
        // The upstream allows fewer per socket than the budget says: this socket is full as it is.
        this.capacity = Math.min(this.capacity, this.subscribed.size);
        return pending.reject(new SocketBudgetSpent(detail));
      }
      return pending.reject(CLIENTS_REACHED.test(detail) ? new SocketBudgetSpent(detail) : new ApplicationError(detail));
    }
    this.subscribed.set(id, { query: pending.query, sink: pending.sink });
    let released = false;
    const slot: Slot = {
      upstream: this.upstream,
      release: () => {
        if (released) return;
        released = true;
        if (this.subscribed.delete(id) && !this.closed) this.send({ jsonrpc: '2.0', id: `un${id}`, method: 'unsubscribe', params: { query: pending.query } });
        this.unplace();
      },
      fail: (reason) => this.fail(reason),
    };
    pending.sink.onSubscribed(slot);
    pending.resolve(slot);
  }

  private byQuery(query: unknown): { query: string; sink: SlotSink } | undefined {
    if (typeof query !== 'string') return undefined;
    for (const s of this.subscribed.values()) if (s.query === query) return s;
    return undefined;
  }

  /** A subscribe unanswered for TIMEOUT_MS ends the socket (open, but the upstream is not answering). */
  private armTimer(): void {
    clearTimeout(this.timer);
    if (this.pending.size === 0) return;
    this.timer = setTimeout(() => this.fail(`no subscribe answer from ${this.upstream.name} within ${TIMEOUT_MS}ms`), TIMEOUT_MS);
  }

  private send(message: object): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }
}

export class SubscriptionSockets {
  private readonly open = new Map<Upstream, SharedSocket[]>();

  constructor(private readonly budget: () => SocketBudget) {}

  /**
   * Subscribes `query` on `u`, on a socket with a free place or a new one within the budget. Rejects
   * with SocketBudgetSpent when neither is left, ApplicationError when the upstream refused the query.
   */
  async attach(u: Upstream, query: string, sink: SlotSink): Promise<Slot> {
    for (;;) {
      const socket = this.placeOn(u);
      socket.places++;
      try {
        const slot = await socket.subscribe(query, sink);
        return slot;
      } catch (err) {
        socket.unplace();
        // The upstream's own per-socket limit is lower: the socket's capacity was lowered, try again.
        if (err instanceof SocketBudgetSpent && PER_CLIENT_REACHED.test(err.message) && !socket.closed) continue;
        throw err;
      }
    }
  }

  /** Sockets open now and the subscriptions on each, per upstream name (tests, metrics). */
  usage(): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const [u, sockets] of this.open) out[u.name] = sockets.map((s) => s.size);
    return out;
  }

  closeAll(): void {
    for (const sockets of [...this.open.values()]) for (const s of [...sockets]) s.fail('gateway stopping');
    this.open.clear();
  }

  private placeOn(u: Upstream): SharedSocket {
    const { clients, perClient } = this.budget();
    const sockets = this.open.get(u) ?? [];
    const free = sockets.find((s) => !s.closed && s.places < Math.min(s.capacity, perClient));
    if (free) return free;
    if (sockets.length >= clients) throw new SocketBudgetSpent(`max_subscription_clients ${clients} reached`);
    const socket = new SharedSocket(u, perClient, (s) => this.forget(s));
    this.open.set(u, [...sockets, socket]);
    return socket;
  }

  private forget(socket: SharedSocket): void {
    const rest = (this.open.get(socket.upstream) ?? []).filter((s) => s !== socket);
    if (rest.length > 0) this.open.set(socket.upstream, rest);
    else this.open.delete(socket.upstream);
  }
}
