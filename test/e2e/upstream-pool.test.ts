/**
 * The upstream backend over real node-RPC upstreams: an embedded-devnet gateway, reached through two
 * breakable TCP proxies (the same chain under two names), and a second, slower devnet for lag.
 */
import { Comet38Client, WebsocketClient } from '@cosmjs/tendermint-rpc';
import WebSocket from 'ws';
import { call, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { startUpstreamGateway, TcpProxy, type UpstreamGateway } from '../support/upstream';

jest.setTimeout(60_000);

const portOf = (url: string) => Number(new URL(url).port);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let devnet: TestGateway;

beforeAll(async () => {
  devnet = await startTestGateway({ 'devnet.block_time': '200ms' });
  await waitForHeight(devnet.url, 3);
});

afterAll(async () => {
  await devnet?.close();
});

describe('a pool of two proxies to one devnet', () => {
  let a: TcpProxy;
  let b: TcpProxy;
  let gw: UpstreamGateway;

  beforeEach(async () => {
    a = await new TcpProxy(portOf(devnet.url)).start();
    b = await new TcpProxy(portOf(devnet.url)).start();
    gw = await startUpstreamGateway([
      { name: 'a', url: a.url },
      { name: 'b', url: b.url },
    ]);
  });

  afterEach(async () => {
    await gw?.close();
    await a?.close();
    await b?.close();
  });

  it('serves reads and answers immutable ones from the cache', async () => {
    const status = await call(gw.url, 'status');
    expect(status.node_info.network).toBe('rpcgw-devnet-1');
    const direct = await call(devnet.url, 'block', { height: '2' });
    const first = await call(gw.url, 'block', { height: '2' });
    expect(first).toEqual(direct);
    const cache = gw.backend.pool.cache;
    const hits = cache.hits;
    const again = await call(gw.url, 'block', { height: '2' });
    expect(again).toEqual(direct);
    expect(cache.hits).toBe(hits + 1);
    expect(gw.backend.pool.stats().cache.entries).toBeGreaterThan(0);
  });

  it('fails over mid-stream of reads: no client request fails', async () => {
    const head = Number((await call(gw.url, 'status')).sync_info.latest_block_height);
    const failures: string[] = [];
    let done = 0;
    const reader = async () => {
      for (let i = 0; i < 40; i++) {
        const h = 1 + ((i * 7) % head);
        // Distinct params (per_page) keep the cache out of the way.
        const res = await post(gw.url, { jsonrpc: '2.0', id: i, method: 'validators', params: { height: String(h), per_page: String(1 + (i % 50)) } });
        if (res.json?.error) failures.push(JSON.stringify(res.json.error));
        done++;
        await sleep(5);
      }
    };
    const readers = Promise.all([reader(), reader(), reader(), reader()]);
    await sleep(60);
    await a.kill();
    await readers;
    expect(done).toBe(160);
    expect(failures).toEqual([]);
  });

  it('keeps delivering NewBlock after the upstream socket is killed, without duplicates or gaps', async () => {
    const ws = new WebSocket(gw.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const heights: number[] = [];
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString());
      const h = msg.result?.data?.value?.block?.header?.height;
      if (h) heights.push(Number(h));
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: "tm.event='NewBlock'" } }));
    while (heights.length < 3) await sleep(50);
    const subs = gw.backend.events.subscriptions();
    const newBlockSub = subs.find((s) => s.query.includes('NewBlock') && !s.query.includes('Header'))!;
    const victim = newBlockSub.current!.name === 'a' ? a : b;
    await victim.kill();
    const before = heights.length;
    while (heights.length < before + 8) await sleep(50);
    ws.close();
    expect(newBlockSub.switches).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < heights.length; i++) expect(heights[i]).toBe(heights[i - 1] + 1);
  });

  it('works for CosmJS Comet38Client: status, block, subscribeNewBlock', async () => {
    const client = await Comet38Client.connect(gw.url);
    const status = await client.status();
    expect(status.nodeInfo.network).toBe('rpcgw-devnet-1');
    const block = await client.block(2);
    expect(block.block.header.height).toBe(2);
    client.disconnect();
    const wsClient = Comet38Client.create(new WebsocketClient(gw.url.replace(/^http/, 'ws')));
    try {
      const heights = await new Promise<number[]>((resolve, reject) => {
        const seen: number[] = [];
        const sub = wsClient.subscribeNewBlock().subscribe({
          next: (ev) => {
            seen.push(ev.header.height);
            if (seen.length === 2) {
              sub.unsubscribe();
              resolve(seen);
            }
          },
          error: reject,
        });
      });
      expect(heights[1]).toBe(heights[0] + 1);
    } finally {
      wsClient.disconnect();
    }
  });

  it('shares one upstream subscription between clients of the same query', async () => {
    const open = async () => {
      const ws = new WebSocket(gw.wsUrl);
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'subscribe', params: { query: "tm.event = 'Tx'" } }));
      await new Promise((r) => ws.once('message', r));
      return ws;
    };
    const [c1, c2] = [await open(), await open()];
    expect(gw.backend.events.subscriptions().filter((s) => s.query === "tm.event = 'Tx'")).toHaveLength(1);
    c1.close();
    c2.close();
  });
});

describe('start-up with bad upstreams', () => {
  it('starts with an unreachable upstream, reports it, and serves from the healthy one', async () => {
    const dead = await new TcpProxy(1).start();
    const deadUrl = dead.url;
    await dead.kill();
    const gw = await startUpstreamGateway([
      { name: 'dead', url: deadUrl },
      { name: 'live', url: devnet.url },
    ]);
    try {
      const health = await call(gw.url, 'health');
      expect(health.upstreams).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'dead', healthy: false, reason: 'unreachable' })]),
      );
      const block = await call(gw.url, 'block', { height: '1' });
      expect(block.block.header.height).toBe('1');
    } finally {
      await gw.close();
    }
  });

  it('with no healthy upstream, answers a clear error', async () => {
    const gw = await startUpstreamGateway([{ name: 'dead', url: 'http://127.0.0.1:1' }]);
    try {
      const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'block', params: { height: '1' } });
      expect(res.json.error.code).toBe(-32603);
      expect(res.json.error.data).toMatch(/^no healthy upstream node available \(dead: unreachable/);
      const health = await post(gw.url, { jsonrpc: '2.0', id: 2, method: 'health', params: {} });
      expect(health.json.error.data).toMatch(/no healthy upstream/);
    } finally {
      await gw.close();
    }
  });
});

describe('height-aware routing', () => {
  it('never sends a lagging upstream a height it lacks', async () => {
    // A second devnet that started later with slower blocks: same chain id, always behind.
    const slow = await startTestGateway({ 'devnet.block_time': '1s' });
    const gw = await startUpstreamGateway(
      [
        { name: 'fast', url: devnet.url },
        { name: 'slow', url: slow.url, weight: 1000 },
      ],
      { max_height_lag: 100000, hedge_quantile: 0 },
    );
    try {
      await waitForHeight(devnet.url, 15);
      const slowUp = gw.backend.pool.upstreams.find((u) => u.name === 'slow')!;
      const head = Number((await call(devnet.url, 'status')).sync_info.latest_block_height);
      for (let h = 1; h <= head; h++) await call(gw.url, 'header', { height: String(h) });
      // The slow one, weighted far higher, took the low heights, and never a height beyond its head.
      expect(slowUp.counters.requests).toBeGreaterThan(0);
      expect(slowUp.counters.answerErrors).toBe(0);
      expect(slowUp.counters.failures).toBe(0);
    } finally {
      await gw.close();
      await slow.close();
    }
  });
});
