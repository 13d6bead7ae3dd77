import { WebSocketServer } from 'ws';
import { STALL_BLOCKS, Upstream } from '../../../src/backends/upstream/upstream';
import { UPSTREAM_DEFAULTS } from '../../../src/config/upstream-config';
import type { UpstreamPool } from '../../../src/backends/upstream/upstream-pool';
import { WsMultiplexer } from '../../../src/backends/upstream/ws-multiplexer';
import type { Invoker } from '../../../src/rpc/invoker';
import { EventBus } from '../../../src/events';

const HEAD = "tm.event = 'NewBlockHeader'";

/** A node-RPC `/websocket` that accepts every subscribe, or refuses the head query while `refuseHead`. */
async function fakeNode(): Promise<{ url: string; refuseHead: boolean; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  const node = {
    url: `http://127.0.0.1:${(wss.address() as { port: number }).port}`,
    refuseHead: false,
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      return new Promise<void>((r) => wss.close(() => r()));
    },
  };
  wss.on('connection', (ws) =>
    ws.on('message', (raw) => {
      const { id, method, params } = JSON.parse(raw.toString());
      if (method !== 'subscribe') return;
      const refused = node.refuseHead && params.query === HEAD;
      ws.send(JSON.stringify(refused ? { jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error', data: 'max_subscription_clients 1 reached' } } : { jsonrpc: '2.0', id, result: {} }));
    }),
  );
  return node;
}

/** A healthy upstream named `name` on `url`. */
function healthy(name: string, url: string): Upstream {
  const upstream = new Upstream({ name, url, weight: 1 }, UPSTREAM_DEFAULTS);
  upstream.healthy = true;
  return upstream;
}

/** A multiplexer over a pool of `upstreams` (only what the multiplexer reads of a pool). */
function multiplexer(upstreams: Upstream[]): WsMultiplexer {
  const pool = {
    upstreams,
    settings: UPSTREAM_DEFAULTS,
    unavailable: () => new Error('no upstream'),
    checkHealth: async () => undefined,
    observeHeight: () => undefined,
  } as unknown as UpstreamPool;
  // No block is read here: events come from the subscriptions only.
  return new WsMultiplexer(pool, new EventBus(), {} as Invoker);
}

describe('WsMultiplexer', () => {
  let node: Awaited<ReturnType<typeof fakeNode>>;
  let mux: WsMultiplexer;

  beforeEach(async () => {
    node = await fakeNode();
    mux = multiplexer([healthy('a', node.url)]);
  });

  afterEach(async () => {
    mux.stop();
    await node.close();
  });

  const queries = () => mux.subscriptions().map((s) => s.query).sort();

  it('feeds a per-block query from its own subscription, without a head subscription', async () => {
    const release = await mux.feed("tm.event = 'NewBlock'");
    expect(queries()).toEqual(["tm.event = 'NewBlock'"]);
    release();
    expect(queries()).toEqual([]);
  });

  it('adds a head subscription to other queries and closes it with the last of them', async () => {
    const release = await mux.feed("tm.event = 'Tx'");
    expect(queries()).toEqual([HEAD, "tm.event = 'Tx'"]);
    release();
    expect(queries()).toEqual([]);
  });

  it('does not give back a head subscription it did not get: a later feed keeps its own', async () => {
    node.refuseHead = true;
    const first = await mux.feed("tm.event = 'Tx'");
    expect(queries()).toEqual(["tm.event = 'Tx'"]);
    node.refuseHead = false;
    const second = await mux.feed("tm.event = 'ValidatorSetUpdates'");
    expect(queries()).toEqual([HEAD, "tm.event = 'Tx'", "tm.event = 'ValidatorSetUpdates'"]);
    first();
    expect(queries()).toEqual([HEAD, "tm.event = 'ValidatorSetUpdates'"]);
    second();
    expect(queries()).toEqual([]);
  });
});

describe('a stalled upstream socket', () => {
  it('moves a per-block subscription whose node got STALL_BLOCKS ahead of its last event to another upstream', async () => {
    const nodes = [await fakeNode(), await fakeNode()];
    const upstreams = nodes.map((n, i) => healthy(`u${i}`, n.url));
    const mux = multiplexer(upstreams);
    try {
      const release = await mux.feed("tm.event = 'NewBlock'");
      const [sub] = mux.subscriptions();
      const first = sub.current!;
      // Two blocks past what it sent (nothing): not yet stalled.
      first.latestHeight += STALL_BLOCKS - 1n;
      sub.checkPlacement();
      expect(sub.current).toBe(first);
      first.latestHeight += 1n;
      sub.checkPlacement();
      while (sub.current === undefined) await new Promise((r) => setTimeout(r, 10));
      expect([sub.current.name, sub.switches]).toEqual([upstreams.find((u) => u !== first)!.name, 1]);
      release();
    } finally {
      mux.stop();
      await Promise.all(nodes.map((n) => n.close()));
    }
  });
});
