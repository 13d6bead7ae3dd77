/**
 * The upstream backend over real node-RPC upstreams: an embedded-devnet gateway, reached through two
 * breakable TCP proxies (the same chain under two names), and that devnet with followers of it
 * (`--devnet.follow`) as a pool of full nodes, one of which lags and one of which dies.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { DevnetNode } from '../../src/backends/embedded/devnet-node';
import { call, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { startGatewayProcess } from '../support/gateway-process';
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
    // Calls to one upstream go out as JSON-RPC batches (CometBFT's max_request_batch_size is 10).
    gw = await startUpstreamGateway(
      [
        { name: 'a', url: a.url },
        { name: 'b', url: b.url },
      ],
      { settings: { batch_max_size: 10, batch_max_wait: '20ms' } },
    );
  });

  afterEach(async () => {
    await gw?.close();
    await a?.close();
    await b?.close();
  });

  it('splits a batch of reads over both upstreams, runs a broadcast in its place and answers in order', async () => {
    await waitForHeight(devnet.url, 12);
    const before = gw.backend.pool.upstreams.map((u) => u.counters.requests);
    // max_request_batch_size is 10 by default.
    const reads = (from: number) => Array.from({ length: 4 }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'block', params: { height: String(from + i) } }));
    const tx = Buffer.from(`batch-key=${Date.now()}`).toString('base64');
    const batch = [...reads(1), { jsonrpc: '2.0', id: 'tx', method: 'broadcast_tx_sync', params: { tx } }, ...reads(5)];
    const res = await post(gw.url, batch);
    if (!Array.isArray(res.json)) throw new Error(res.text);
    const answers = res.json as Array<{ id: unknown; result: { block?: { header: { height: string } }; code?: number } }>;
    expect(answers.map((x) => x.id)).toEqual(batch.map((x) => x.id));
    expect(answers.filter((x) => x.id !== 'tx').map((x) => x.result.block!.header.height)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(answers[4].result.code).toBe(0);
    const after = gw.backend.pool.upstreams.map((u) => u.counters.requests);
    expect(after.map((n, i) => n - before[i]).every((n) => n > 0)).toBe(true);
  });

  it('sends the reads of many clients to an upstream as batches; each client gets its own answer', async () => {
    await waitForHeight(devnet.url, 12);
    const batched = () => gw.backend.pool.upstreams.reduce((n, u) => n + u.client.batches.calls, 0);
    const before = batched();
    const heights = Array.from({ length: 24 }, (_, i) => 1 + (i % 12));
    const blocks = await Promise.all(heights.map((h) => call(gw.url, 'block', { height: String(h) })));
    expect(blocks.map((b) => Number(b.block.header.height))).toEqual(heights);
    expect(batched() - before).toBeGreaterThan(1);
    for (const u of gw.backend.pool.upstreams) expect(u.client.batches.calls).toBeLessThanOrEqual(u.client.batches.sent * 10);
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

describe('batches larger than the node takes', () => {
  it('sends the calls of a refused batch one by one, and no batch again', async () => {
    // CometBFT (and the devnet) answer a batch over max_request_batch_size (10) with one error.
    const gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], { settings: { batch_max_size: 20, batch_max_wait: '20ms' }, flags: { 'rpc.max_request_batch_size': '20' } });
    try {
      await waitForHeight(devnet.url, 12);
      const [u] = gw.backend.pool.upstreams;
      const heights = Array.from({ length: 12 }, (_, i) => i + 1);
      // One client batch: its 12 members reach the pool in one turn, so they leave as one upstream batch
      // however slow the machine is.
      const batch = (method: string, params: (i: number) => unknown) => post(gw.url, heights.map((h, i) => ({ jsonrpc: '2.0', id: i, method, params: params(h) })));
      const blocks = (await batch('block', (h) => ({ height: String(h) }))).json;
      expect(blocks.map((b: any) => Number(b.result.block.header.height))).toEqual(heights);
      const answers = (await batch('abci_query', (h) => ({ path: '/key', data: Buffer.from(`no-such-key-${h}`).toString('hex') }))).json;
      expect(answers.map((a: any) => a.result.response.code)).toEqual(heights.map(() => 0));
      expect(u.client.batches.sent).toBe(1);
      expect(u.counters.failures).toBe(0);
    } finally {
      await gw.close();
    }
  });
});

/** An HTTP proxy in front of a node RPC that records the height of every call it passes on. */
class HeightRecorder {
  readonly heights: number[] = [];
  private server: Server | undefined;
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks);
        try {
          const msg = JSON.parse(body.toString()) as { params?: { height?: string } };
          if (msg.params?.height !== undefined) this.heights.push(Number(msg.params.height));
        } catch {
          // Not JSON-RPC: passed on unrecorded.
        }
        try {
          const answer = await fetch(this.target + req.url, { method: req.method, headers: { 'Content-Type': 'application/json' }, body: req.method === 'POST' ? body : undefined });
          res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
        } catch {
          // The follower's connection lost (a keep-alive connection it closed as it was reused): a
          // gateway sees an upstream failure, as from a node behind a proxy, and asks another.
          res.writeHead(502).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

describe('a pool of the devnet and its followers', () => {
  const headOf = async (url: string) => Number((await call(url, 'status')).sync_info.latest_block_height);
  const untilHealthy = async (gw: UpstreamGateway, name: string) => {
    while (!gw.backend.pool.upstreams.find((u) => u.name === name)!.healthy) await sleep(50);
  };

  it('never asks a paused (lagging) follower for a height it lacks, and every read succeeds', async () => {
    const follower = await startTestGateway({ 'devnet.follow': devnet.url });
    const recorder = await new HeightRecorder(follower.url).start();
    const gw = await startUpstreamGateway(
      [
        { name: 'leader', url: devnet.url },
        { name: 'follower', url: recorder.url, weight: 1000 },
      ],
      { settings: { hedge_quantile: 0 } },
    );
    const sync = follower.app.get(DevnetNode).devnet.follower!;
    try {
      await untilHealthy(gw, 'follower');
      // In sync, the follower (weighted far higher) takes the reads.
      const first = await headOf(devnet.url);
      for (let h = 1; h <= first; h++) await call(gw.url, 'header', { height: String(h) });
      expect(recorder.heights.length).toBeGreaterThan(0);

      sync.pause();
      await waitForHeight(devnet.url, (await headOf(follower.url)) + 5);
      const asked = recorder.heights.length;
      const head = await headOf(devnet.url);
      for (let h = 1; h <= head; h++) await call(gw.url, 'block', { height: String(h) });
      const lacking = await headOf(follower.url);
      expect(lacking).toBeLessThan(head);
      expect(recorder.heights.slice(asked).filter((h) => h > lacking)).toEqual([]);
      expect(gw.backend.pool.upstreams.find((u) => u.name === 'follower')!.downReason).toBe('catching-up');

      sync.resume();
      await waitForHeight(follower.url, head);
      await untilHealthy(gw, 'follower');
      // Back in the pool, it takes reads again (commits: not in the cache yet).
      const resumed = recorder.heights.length;
      for (let h = 1; h <= head; h++) await call(gw.url, 'commit', { height: String(h) });
      expect(recorder.heights.length).toBeGreaterThan(resumed);
    } finally {
      await gw.close();
      await recorder.close();
      await follower.close();
    }
  });

  it('loses a follower process mid-stream of reads: no client request fails', async () => {
    const victim = await startGatewayProcess({ 'devnet.follow': devnet.url });
    const follower = await startTestGateway({ 'devnet.follow': devnet.url });
    const gw = await startUpstreamGateway([
      { name: 'leader', url: devnet.url },
      { name: 'follower', url: follower.url },
      { name: 'victim', url: victim.url, weight: 10 },
    ]);
    try {
      await Promise.all(['follower', 'victim'].map((name) => untilHealthy(gw, name)));
      const head = await headOf(devnet.url);
      const failures: string[] = [];
      let done = 0;
      const reader = async (r: number) => {
        for (let i = 0; i < 40; i++) {
          const h = 1 + ((i * 7 + r) % head);
          // Distinct params (per_page) keep the cache out of the way.
          const res = await post(gw.url, { jsonrpc: '2.0', id: i, method: 'validators', params: { height: String(h), per_page: String(1 + ((i + 40 * r) % 100)) } });
          if (res.json?.error) failures.push(JSON.stringify(res.json.error));
          done++;
          await sleep(5);
        }
      };
      const readers = Promise.all([0, 1, 2, 3].map(reader));
      await sleep(100);
      await victim.kill();
      await readers;
      expect(done).toBe(160);
      expect(failures).toEqual([]);
      expect(gw.backend.pool.upstreams.find((u) => u.name === 'victim')!.counters.requests).toBeGreaterThan(0);
    } finally {
      await gw.close();
      await follower.close();
      await victim.close();
    }
  });
});
