/**
 * Faults of an EVM upstream, through real sockets: a FaultyUpstream proxy in front of a real anvil,
 * switched from one fault to the next, in the pool of one gateway with anvil itself (`clean`) and alone
 * in the pool of another (see fault-bench.ts). Every client read is answered as anvil answers it, the
 * faulty upstream is marked down and routed around, comes back by itself once the fault ends, and a
 * pool of it alone answers a clear error; a lying chain id or height never reaches a client.
 */
import { UpstreamLifecycle } from '../../src/backends/upstream/upstream.module';
import { Anvil } from '../support/anvil';
import {
  CLEAN,
  describeHttpFaults,
  expectCorrectReads,
  FAULTY,
  rpcCall,
  rpcResult,
  startFaultBench,
  until,
  untilFaultyUp,
  upstreamMetric,
  type FaultBench,
  type FreshReads,
} from '../support/fault-bench';
import { EvmWsClient } from './evm-surface-app';

jest.setTimeout(60_000);

const CHAIN_ID = 9001;

let anvil: Anvil;
let bench: FaultBench;
let pairUrl: string;
let soloUrl: string;
let fresh = 0;

/** eth_getBalance of an address never asked before, at latest. */
const reads: FreshReads = {
  method: 'eth_getBalance',
  async next() {
    const params = [`0x${(++fresh).toString(16).padStart(40, '0')}`, 'latest'];
    return { params, want: await anvil.rpc('eth_getBalance', params) };
  },
};

const mine = (blocks: number) => anvil.rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
const head = async () => Number(await anvil.rpc('eth_blockNumber'));
const result = (url: string, method: string) => rpcResult(url, method, []);

/** The block numbers of `sub`'s newHeads notifications, up to block `to`. */
async function headsUntil(ws: EvmWsClient, sub: string, to: number): Promise<number[]> {
  const heights: number[] = [];
  while (heights.at(-1) !== to) heights.push(Number((await ws.notification(sub)).params.result.number));
  return heights;
}

beforeAll(async () => {
  anvil = await Anvil.start({ chainId: CHAIN_ID, noMining: true });
  // Far enough from block 0 for a node that lies behind to lag more than max_height_lag.
  await mine(20);
  bench = await startFaultBench('evm', anvil.url, anvil.url);
  pairUrl = bench.pair.evmHttpUrl!;
  soloUrl = bench.solo.evmHttpUrl!;
});

afterAll(async () => {
  await bench?.close();
  await anvil?.stop();
});

describe('a WebSocket that stops sending', () => {
  it('newHeads keeps coming, each block once and in order, from the other upstream', async () => {
    const ws = await EvmWsClient.open(bench.pair.evmWsUrl!);
    const feed = bench.pair.app.get(UpstreamLifecycle).evmHeads;
    try {
      // At start-up the feed subscribes on the first healthy upstream with a ws URL: the faulty one.
      expect(feed.subscribedTo).toBe(FAULTY);
      const sub = (await ws.call('eth_subscribe', ['newHeads'])).result as string;
      const from = await head();
      bench.proxy.set({ kind: 'ws-stall' });
      for (let i = 0; i < 6; i++) await mine(1);
      await until(() => feed.subscribedTo === CLEAN, 'the newHeads feed moved to the clean upstream');
      bench.proxy.set({ kind: 'none' });
      await mine(2);
      const to = await head();
      const heights = await headsUntil(ws, sub, to);
      expect(heights).toEqual(Array.from({ length: to - from }, (_, i) => from + 1 + i));
    } finally {
      bench.proxy.set({ kind: 'none' });
      await ws.close();
    }
  });
});

describeHttpFaults('HTTP faults of an EVM upstream', () => bench, reads);

describe('an EVM upstream that lies', () => {
  it('about its chain id: quarantined at its first lying answer, none of its answers served or cached, back once it stops', async () => {
    const liar = '424242';
    bench.proxy.set({ kind: 'lie-chain', chain: liar });
    try {
      // Nothing has asked the chain id yet: the first eth_chainId of solo goes to the liar.
      const first = await rpcCall(soloUrl, 'eth_chainId', []);
      expect(first.result).toBeUndefined();
      expect(first.error).toEqual({ code: -32000, message: expect.stringMatching(/chain 424242/) });
      for (let i = 0; i < 10; i++) {
        expect(await result(pairUrl, 'eth_chainId')).toBe(`0x${CHAIN_ID.toString(16)}`);
        expect(await result(pairUrl, 'net_version')).toBe(String(CHAIN_ID));
      }
      await until(async () => (await upstreamMetric(bench, bench.pair, 'upstream_wrong_chain', FAULTY)) === 1, 'quarantined');
      const calls = bench.proxy.requests(reads.method);
      await expectCorrectReads(bench, bench.pair, reads, 10);
      expect(bench.proxy.requests(reads.method)).toBe(calls);
      expect((await rpcCall(soloUrl, 'eth_chainId', [])).error).toEqual({
        code: -32000,
        message: `no healthy EVM upstream available (${FAULTY}: wrong-chain (chain ${liar}, the pool serves ${CHAIN_ID}))`,
      });
    } finally {
      bench.proxy.set({ kind: 'none' });
    }
    await untilFaultyUp(bench, bench.solo, 1);
    // Nothing of the liar was kept: the chain id is the pool's.
    expect(await result(soloUrl, 'eth_chainId')).toBe(`0x${CHAIN_ID.toString(16)}`);
    expect(await result(soloUrl, 'net_version')).toBe(String(CHAIN_ID));
  });

  it('about its height, far ahead: not believed; the head and newHeads follow the real chain', async () => {
    const ws = await EvmWsClient.open(bench.pair.evmWsUrl!);
    try {
      const sub = (await ws.call('eth_subscribe', ['newHeads'])).result as string;
      const from = await head();
      bench.proxy.set({ kind: 'lie-height', by: 1000 });
      try {
        await untilFaultyUp(bench, bench.pair, 0);
        for (let i = 0; i < 5; i++) {
          await mine(1);
          expect(Number(await result(pairUrl, 'eth_blockNumber'))).toBe(await head());
        }
        expect(await upstreamMetric(bench, bench.pair, 'upstream_up', CLEAN)).toBe(1);
        // Alone, it is down too: its own last head is far below what it claims.
        await untilFaultyUp(bench, bench.solo, 0);
        expect((await rpcCall(soloUrl, 'eth_blockNumber', [])).error).toEqual({
          code: -32000,
          message: expect.stringMatching(/^no healthy EVM upstream available \(faulty: bad-height \(reports height \d+, a block it does not serve\)\)$/),
        });
      } finally {
        bench.proxy.set({ kind: 'none' });
      }
      await untilFaultyUp(bench, bench.pair, 1);
      await mine(2);
      const to = await head();
      const heights = await headsUntil(ws, sub, to);
      // Every block after the subscription, once, in order; none of the liar's heights.
      expect(heights).toEqual(Array.from({ length: to - from }, (_, i) => from + 1 + i));
    } finally {
      await ws.close();
    }
  });

  it('about its height, far behind: marked lagging; the head is never its stale one; back once it stops', async () => {
    await mine(2);
    bench.proxy.set({ kind: 'lie-height', by: -1000 });
    try {
      await untilFaultyUp(bench, bench.pair, 0);
      await mine(1);
      for (let i = 0; i < 10; i++) expect(Number(await result(pairUrl, 'eth_blockNumber'))).toBe(await head());
      await expectCorrectReads(bench, bench.pair, reads, 5);
    } finally {
      bench.proxy.set({ kind: 'none' });
    }
    await untilFaultyUp(bench, bench.pair, 1);
    expect(Number(await result(pairUrl, 'eth_blockNumber'))).toBe(await head());
  });
});
