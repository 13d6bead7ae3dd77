/**
 * Faults of a node-RPC upstream, through real sockets: a FaultyUpstream proxy in front of an
 * embedded-devnet gateway (a real CometBFT-style node RPC, HTTP and /websocket), switched from one fault
 * to the next, in the pool of one gateway with the devnet itself (`clean`) and alone in the pool of
 * another (see fault-bench.ts). Every client read is answered as the devnet answers it, the faulty
 * upstream is marked down and routed around, comes back by itself once the fault ends, and a pool of it
 * alone answers a clear error; a lying network or height never reaches a client; NewBlock keeps coming
 * when its upstream socket stalls.
 */
import WebSocket from 'ws';
import { call, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import {
  CLEAN,
  clientError,
  describeHttpFaults,
  expectCorrectReads,
  FAULTY,
  noneHealthy,
  rpcCall,
  rpcResult,
  startFaultBench,
  until,
  untilFaultyUp,
  upstreamMetric,
  type FaultBench,
  type FreshReads,
} from '../support/fault-bench';

jest.setTimeout(60_000);

const NETWORK = 'rpcgw-devnet-1';
/** Heights the reads spread over (the devnet is past them before the first read). */
const HEIGHTS = 10;

let devnet: TestGateway;
let bench: FaultBench;
let pairUrl: string;
let soloUrl: string;
let fresh = 0;

/** `validators` at a past height with a page size not asked before at that height. */
const reads: FreshReads = {
  method: 'validators',
  async next() {
    fresh++;
    const params = { height: String(1 + (Math.floor(fresh / 100) % HEIGHTS)), per_page: String(1 + (fresh % 100)) };
    return { params, want: await call(devnet.url, 'validators', params) };
  },
};

const head = async (url: string) => Number((await rpcResult(url, 'status', {})).sync_info.latest_block_height);

beforeAll(async () => {
  devnet = await startTestGateway({ 'devnet.block_time': '200ms' });
  await waitForHeight(devnet.url, HEIGHTS);
  bench = await startFaultBench('node', devnet.url, devnet.url);
  pairUrl = bench.pair.url;
  soloUrl = bench.solo.url;
});

afterAll(async () => {
  await bench?.close();
  await devnet?.close();
});

describe('a WebSocket that stops sending', () => {
  /** A client subscribed to NewBlock through `pair`, and the heights it has received. */
  async function subscribeNewBlock(): Promise<{ ws: WebSocket; heights: number[] }> {
    const ws = new WebSocket(bench.pair.wsUrl);
    await new Promise((r) => ws.once('open', r));
    const heights: number[] = [];
    ws.on('message', (raw) => {
      const h = JSON.parse(raw.toString()).result?.data?.value?.block?.header?.height;
      if (h) heights.push(Number(h));
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: "tm.event='NewBlock'" } }));
    await until(() => heights.length > 0, 'a first NewBlock');
    return { ws, heights };
  }

  it('NewBlock keeps coming, each height once and in order, from the other upstream', async () => {
    const feed = () => bench.pair.backend.events.subscriptions().find((s) => s.query === "tm.event = 'NewBlock'");
    let client = await subscribeNewBlock();
    // The faulty upstream weighs most: the upstream subscription lands on it, unless a block came
    // between the two health probes and the clean one looked higher; then the client subscribes again.
    while (feed()?.current?.name !== FAULTY) {
      client.ws.close();
      await until(() => feed() === undefined, 'the upstream subscription closed');
      client = await subscribeNewBlock();
    }
    const { ws, heights } = client;
    try {
      bench.proxy.set({ kind: 'ws-stall' });
      await until(() => feed()?.current?.name === CLEAN, 'NewBlock resubscribed on the clean upstream');
      bench.proxy.set({ kind: 'none' });
      const to = (await head(devnet.url)) + 3;
      await until(() => heights.at(-1)! >= to, `NewBlock at ${to}`);
      expect(heights).toEqual(Array.from({ length: heights.length }, (_, i) => heights[0] + i));
    } finally {
      bench.proxy.set({ kind: 'none' });
      ws.close();
    }
  });
});

describeHttpFaults('HTTP faults of a node-RPC upstream', () => bench, reads);

describe('a node-RPC upstream that lies', () => {
  it('about its network: quarantined at its first lying status, none of its answers served, back once it stops', async () => {
    const liar = 'other-chain-7';
    bench.proxy.set({ kind: 'lie-chain', chain: liar });
    try {
      // The first status of solo goes to the liar: refused, not served.
      expect((await rpcCall(soloUrl, 'status', {})).error).toEqual(clientError('node', new RegExp(`chain ${liar}`)));
      for (let i = 0; i < 10; i++) expect((await rpcResult(pairUrl, 'status', {})).node_info.network).toBe(NETWORK);
      await until(async () => (await upstreamMetric(bench, bench.pair, 'upstream_wrong_chain', FAULTY)) === 1, 'quarantined');
      expect((await rpcResult(pairUrl, 'health', {})).upstreams).toContainEqual(expect.objectContaining({ name: FAULTY, healthy: false, reason: 'wrong-chain' }));
      const calls = bench.proxy.requests(reads.method);
      await expectCorrectReads(bench, bench.pair, reads, 10);
      expect(bench.proxy.requests(reads.method)).toBe(calls);
      expect((await rpcCall(soloUrl, 'status', {})).error).toEqual(clientError('node', `${noneHealthy('node')} (${FAULTY}: wrong-chain (chain ${liar}, the pool serves ${NETWORK}))`));
    } finally {
      bench.proxy.set({ kind: 'none' });
    }
    await untilFaultyUp(bench, bench.solo, 1);
    expect((await rpcResult(soloUrl, 'status', {})).node_info.network).toBe(NETWORK);
  });

  it('about its height, far ahead: not believed; the head is the real one and a height past it is the node’s own error', async () => {
    bench.proxy.set({ kind: 'lie-height', by: 1000 });
    try {
      await Promise.all([untilFaultyUp(bench, bench.pair, 0), untilFaultyUp(bench, bench.solo, 0)]);
      expect((await rpcResult(pairUrl, 'health', {})).upstreams).toContainEqual(expect.objectContaining({ name: FAULTY, healthy: false, reason: 'bad-height' }));
      for (let i = 0; i < 5; i++) expect(await head(pairUrl)).toBeLessThanOrEqual(await head(devnet.url));
      const ahead = (await head(devnet.url)) + 500;
      expect((await rpcCall(pairUrl, 'block', { height: String(ahead) })).error).toEqual(
        clientError('node', new RegExp(`^height ${ahead} must be less than or equal to the current blockchain height \\d+$`)),
      );
      expect((await rpcCall(soloUrl, reads.method, (await reads.next()).params)).error).toEqual(
        clientError('node', new RegExp(`^${noneHealthy('node')} \\(${FAULTY}: bad-height \\(reports height \\d+, a block it does not serve\\)\\)$`)),
      );
    } finally {
      bench.proxy.set({ kind: 'none' });
    }
    await Promise.all([untilFaultyUp(bench, bench.pair, 1), untilFaultyUp(bench, bench.solo, 1)]);
  });

  it('about its height, far behind: marked lagging; the head served is never its stale one; back once it stops', async () => {
    bench.proxy.set({ kind: 'lie-height', by: -100 });
    try {
      await untilFaultyUp(bench, bench.pair, 0);
      for (let i = 0; i < 10; i++) {
        const real = await head(devnet.url);
        // At most a block or two behind (a status cached for the current head), never 100.
        expect(await head(pairUrl)).toBeGreaterThan(real - 5);
      }
      await expectCorrectReads(bench, bench.pair, reads, 5);
    } finally {
      bench.proxy.set({ kind: 'none' });
    }
    await untilFaultyUp(bench, bench.pair, 1);
  });
});
