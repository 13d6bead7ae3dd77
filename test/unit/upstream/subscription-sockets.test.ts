import WebSocket, { WebSocketServer } from 'ws';
import { Upstream } from '../../../src/backends/upstream/upstream';
import type { UpstreamPool } from '../../../src/backends/upstream/upstream-pool';
import { WsMultiplexer } from '../../../src/backends/upstream/ws-multiplexer';
import { UPSTREAM_DEFAULTS, type UpstreamSettings } from '../../../src/config/upstream-config';
import { EventBus, parseQuery, type BusEvent } from '../../../src/events';
import type { Invoker } from '../../../src/rpc/invoker';

const HEAD = "tm.event = 'NewBlockHeader'";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A node-RPC `/websocket` with CometBFT's two limits (checked as CometBFT checks them): it counts its
 * clients and the subscriptions of each, and can send an event to every subscriber of a query.
 */
async function limitedNode(maxClients: number, maxPerClient: number) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  const subs = new Map<WebSocket, Map<string, unknown>>();
  const clients = () => [...subs.values()].filter((m) => m.size > 0).length;
  wss.on('connection', (ws) => {
    subs.set(ws, new Map());
    ws.on('close', () => subs.delete(ws));
    ws.on('message', (raw) => {
      const { id, method, params } = JSON.parse(raw.toString());
      const mine = subs.get(ws)!;
      const error = (data: string) => ws.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error', data } }));
      if (method === 'unsubscribe') return void mine.delete(params.query);
      if (method !== 'subscribe') return;
      if (clients() >= maxClients) return error(`max_subscription_clients ${maxClients} reached`);
      if (mine.size >= maxPerClient) return error(`max_subscriptions_per_client ${maxPerClient} reached`);
      mine.set(params.query, id);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
    });
  });
  return {
    url: `http://127.0.0.1:${(wss.address() as { port: number }).port}`,
    /** Subscriptions per open socket. */
    usage: () => [...subs.values()].map((m) => m.size).filter((n) => n > 0).sort(),
    /** A Tx event with `key` to every subscriber of `query`, under its subscribe id. */
    emit(query: string, key: string) {
      for (const [ws, mine] of subs) {
        const id = mine.get(query);
        if (id === undefined) continue;
        const events = { 'tm.event': ['Tx'], 'tx.height': ['5'], 'tx.hash': [key.toUpperCase().padEnd(64, '0')], 'app.key': [key] };
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: { query, data: { type: 'tendermint/event/Tx', value: { TxResult: { height: '5' } } }, events } }));
      }
    },
    /** Cancels `query` as CometBFT does for a slow client: an error under its id, the socket stays. */
    cancel(query: string) {
      for (const [ws, mine] of subs) {
        const id = mine.get(query);
        if (id === undefined) continue;
        mine.delete(query);
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'Server error', data: 'subscription was canceled (reason: slow client)' } }));
      }
    },
    /** Drops every socket; the node stays up. */
    dropAll: () => {
      for (const ws of wss.clients) ws.terminate();
    },
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      return new Promise<void>((r) => wss.close(() => r()));
    },
  };
}

function multiplexer(url: string, settings: Partial<UpstreamSettings>, bus = new EventBus()): WsMultiplexer {
  const upstream = new Upstream({ name: 'a', url, weight: 1 }, UPSTREAM_DEFAULTS);
  upstream.healthy = true;
  const pool = {
    upstreams: [upstream],
    settings: { ...UPSTREAM_DEFAULTS, ...settings },
    unavailable: () => new Error('no upstream'),
    checkHealth: async () => undefined,
    observeHeight: () => undefined,
  } as unknown as UpstreamPool;
  return new WsMultiplexer(pool, bus, {} as Invoker);
}

const txQuery = (i: number) => `tm.event = 'Tx' AND app.key = 'k${i}'`;

describe('upstream subscription sockets', () => {
  let node: Awaited<ReturnType<typeof limitedNode>>;
  let mux: WsMultiplexer;

  afterEach(async () => {
    mux?.stop();
    await node?.close();
  });

  it('puts up to max_subscriptions_per_client queries on one socket and opens at most max_subscription_clients', async () => {
    node = await limitedNode(100, 5);
    mux = multiplexer(node.url, { max_subscription_clients: 3, max_subscriptions_per_client: 5 });
    const releases: (() => void)[] = [];
    // The head query and 14 client queries: 15 places, 3 sockets of 5.
    for (let i = 0; i < 14; i++) releases.push(await mux.feed(txQuery(i)));
    expect(mux.socketUsage()).toEqual({ a: [5, 5, 5] });
    expect(node.usage()).toEqual([5, 5, 5]);
    await expect(mux.feed(txQuery(99))).rejects.toThrow(/^max_subscription_clients 3 reached$/);
    // A query already fed takes no place.
    releases.push(await mux.feed(txQuery(0)));
    for (const release of releases) release();
    expect(mux.socketUsage()).toEqual({});
    await sleep(50);
    expect(node.usage()).toEqual([]);
  });

  it('learns an upstream per-client limit lower than its own and stays within the socket budget', async () => {
    node = await limitedNode(100, 2);
    mux = multiplexer(node.url, { max_subscription_clients: 3, max_subscriptions_per_client: 5 });
    for (let i = 0; i < 5; i++) await mux.feed(txQuery(i));
    expect(node.usage()).toEqual([2, 2, 2]);
    await expect(mux.feed(txQuery(5))).rejects.toThrow(/^max_subscription_clients 3 reached$/);
  });

  it("answers its own error, not the upstream's, when the upstream takes no more clients", async () => {
    node = await limitedNode(1, 5);
    mux = multiplexer(node.url, { max_subscription_clients: 4, max_subscriptions_per_client: 2 });
    await mux.feed("tm.event = 'NewBlock'");
    // CometBFT counts its clients first, whoever asks: no second subscription on the same socket either.
    await expect(mux.feed("tm.event = 'NewBlockEvents'")).rejects.toThrow(/^max_subscription_clients 4 reached$/);
    expect(node.usage()).toEqual([1]);
  });

  it('routes each event to its query on a shared socket; a cancelled query resubscribes, the others stay', async () => {
    node = await limitedNode(100, 5);
    const bus = new EventBus();
    const seen: string[] = [];
    bus.subscribe('test', parseQuery("tm.event = 'Tx'"), { bufferSize: 100, onEvent: (e: BusEvent) => void seen.push(e.events['app.key'][0]), onCancel: () => undefined });
    mux = multiplexer(node.url, { max_subscription_clients: 1, max_subscriptions_per_client: 5 }, bus);
    await mux.feed(txQuery(1));
    await mux.feed(txQuery(2));
    expect(node.usage()).toEqual([3]);
    node.emit(txQuery(1), 'k1');
    node.emit(txQuery(2), 'k2');
    await until(() => seen.length === 2);
    expect(seen.sort()).toEqual(['k1', 'k2']);
    const sub = mux.subscriptions().find((s) => s.query === txQuery(2))!;
    node.cancel(txQuery(2));
    await until(() => sub.switches === 1);
    expect(mux.socketUsage()).toEqual({ a: [3] });
    expect(mux.subscriptions().map((s) => s.query).sort()).toEqual([HEAD, txQuery(1), txQuery(2)].sort());
  });

  it('resubscribes every query of a socket that drops', async () => {
    node = await limitedNode(100, 5);
    mux = multiplexer(node.url, { max_subscription_clients: 2, max_subscriptions_per_client: 2 });
    for (let i = 0; i < 3; i++) await mux.feed(txQuery(i));
    expect(node.usage()).toEqual([2, 2]);
    node.dropAll();
    await until(() => mux.subscriptions().every((s) => s.switches === 1), 15_000);
    expect(node.usage()).toEqual([2, 2]);
  });
});

async function until(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(10);
  }
}
