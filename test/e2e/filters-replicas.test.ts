/**
 * Two gateway replicas (upstream mode, one embedded devnet upstream) sharing their polling filters
 * through Redis: a filter made on one is polled on both, alternately and at once, while a contract
 * emits logs; every change arrives once. Uninstall on one removes it for the other. ethers v6 goes
 * through a small round robin in front of the two.
 */
import { randomBytes } from 'node:crypto';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, type Log } from 'ethers';
import Redis from 'ioredis';
import { compileProbe } from '../unit/embedded/evm-harness';
import { startHttpRoundRobin } from '../support/balancers';
import { evmRpcFlags } from '../support/backends';
import { startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';
import { testProvider } from '../support/ethers-provider';

jest.setTimeout(120_000);

const REDIS_URL = 'redis://127.0.0.1:6379';
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  readonly result?: unknown;
  readonly error?: { code: number; message: string };
}

/** One EVM JSON-RPC call on a new connection: its result, or its error object. */
async function rpc(url: string, method: string, params: unknown[] = []): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as Answer;
}

describe('polling filters shared by two replicas through Redis', () => {
  const prefix = `rpcgw-test:filters:${randomBytes(6).toString('hex')}:`;
  let devnet: TestGateway;
  let a: UpstreamGateway;
  let b: UpstreamGateway;
  let probe: Contract;
  let wallet: Wallet;

  beforeAll(async () => {
    devnet = await startTestGateway({ ...evmRpcFlags('eth,net,web3'), 'devnet.block_time': '200ms' });
    await waitForHeight(devnet.url, 1);
    const replica = () =>
      startUpstreamGateway([{ name: 'devnet', url: devnet.url }], {
        evm: [{ name: 'devnet', url: devnet.evmHttpUrl! }],
        flags: { ...evmRpcFlags('eth,net,web3'), 'filters.redis_url': REDIS_URL, 'filters.redis_key_prefix': prefix },
      });
    [a, b] = await Promise.all([replica(), replica()]);
    wallet = new Wallet(DEV_KEY, testProvider(devnet.evmHttpUrl!));
    const { abi, bytecode } = compileProbe();
    probe = (await new ContractFactory(abi, bytecode, wallet).deploy(0n)) as Contract;
    await probe.waitForDeployment();
  });

  afterAll(async () => {
    wallet?.provider?.destroy();
    await Promise.all([a?.close(), b?.close()]);
    await devnet?.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  /** Sends `count` bump txs one after the other, each mined before the next; their hashes. */
  async function bumps(count: number, note: string): Promise<string[]> {
    const hashes: string[] = [];
    for (let i = 0; i < count; i++) {
      // A fixed gas limit: no eth_estimateGas, whose execution a loaded machine can push past evm-timeout.
      const tx = (await probe.bump(`${note}-${i}`, { gasLimit: 200_000 })) as { hash: string; wait(): Promise<unknown> };
      await tx.wait();
      hashes.push(tx.hash);
    }
    return hashes;
  }

  it('a log filter made on A, polled alternately on A and B with a new connection each, delivers each log once', async () => {
    const address = await probe.getAddress();
    const logFilter = (await rpc(a.evmHttpUrl!, 'eth_newFilter', [{ address }])).result as string;
    const blockFilter = (await rpc(b.evmHttpUrl!, 'eth_newBlockFilter')).result as string;
    const seen: string[] = [];
    const blocks: string[] = [];
    const errors: unknown[] = [];
    let polls = 0;
    let sending = true;
    const poller = (async () => {
      while (sending || polls % 2 === 1) {
        const url = polls++ % 2 === 0 ? a.evmHttpUrl! : b.evmHttpUrl!;
        const [logs, hashes] = await Promise.all([rpc(url, 'eth_getFilterChanges', [logFilter]), rpc(url, 'eth_getFilterChanges', [blockFilter])]);
        if (logs.error || hashes.error) errors.push(logs.error ?? hashes.error);
        seen.push(...((logs.result ?? []) as Array<{ transactionHash: string }>).map((l) => l.transactionHash));
        blocks.push(...((hashes.result ?? []) as string[]));
        await sleep(120);
      }
    })();
    const sent = await bumps(8, 'alternate');
    await sleep(600);
    sending = false;
    await poller;
    expect(errors).toEqual([]);
    expect(seen).toEqual(sent);
    // Block hashes: no repeats, and consecutive heights.
    expect(new Set(blocks).size).toBe(blocks.length);
    const numbers = await Promise.all(blocks.map(async (h) => Number(((await rpc(devnet.evmHttpUrl!, 'eth_getBlockByHash', [h, false])).result as { number: string }).number)));
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i));
    expect(numbers.length).toBeGreaterThan(8);
  });

  it('two polls of one filter racing on A and B never deliver a block twice or lose one', async () => {
    const filter = (await rpc(a.evmHttpUrl!, 'eth_newBlockFilter')).result as string;
    const blocks: string[] = [];
    for (let i = 0; i < 15; i++) {
      const answers = await Promise.all([rpc(a.evmHttpUrl!, 'eth_getFilterChanges', [filter]), rpc(b.evmHttpUrl!, 'eth_getFilterChanges', [filter])]);
      for (const answer of answers) blocks.push(...(answer.result as string[]));
      await sleep(100);
    }
    expect(new Set(blocks).size).toBe(blocks.length);
    const numbers = await Promise.all(blocks.map(async (h) => Number(((await rpc(devnet.evmHttpUrl!, 'eth_getBlockByHash', [h, false])).result as { number: string }).number)));
    numbers.sort((x, y) => x - y);
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0] + i));
    expect(numbers.length).toBeGreaterThan(3);
  });

  it('getFilterLogs on B of a filter made on A; uninstall on B removes it for A', async () => {
    const address = await probe.getAddress();
    const filter = (await rpc(a.evmHttpUrl!, 'eth_newFilter', [{ address, fromBlock: '0x1' }])).result as string;
    const logs = (await rpc(b.evmHttpUrl!, 'eth_getFilterLogs', [filter])).result as unknown[];
    expect(logs.length).toBeGreaterThanOrEqual(8);
    expect((await rpc(b.evmHttpUrl!, 'eth_uninstallFilter', [filter])).result).toBe(true);
    expect((await rpc(a.evmHttpUrl!, 'eth_getFilterChanges', [filter])).error).toEqual({ code: -32000, message: `filter ${filter} not found` });
    expect((await rpc(a.evmHttpUrl!, 'eth_uninstallFilter', [filter])).result).toBe(false);
  });

  it('ethers v6 through a round robin over A and B: contract events and new blocks, each once', async () => {
    const rr = await startHttpRoundRobin([a.evmHttpUrl!, b.evmHttpUrl!]);
    const provider = testProvider(rr.url, { pollingInterval: 150, batchMaxCount: 1 });
    try {
      const watched = new Contract(await probe.getAddress(), probe.interface, provider);
      const events: string[] = [];
      const heads: number[] = [];
      await watched.on('Counted', (_by: string, _count: bigint, _note: string, payload: { log: Log }) => void events.push(payload.log.transactionHash));
      await provider.on('block', (n: number) => void heads.push(n));
      await sleep(500);
      const sent = await bumps(6, 'ethers');
      const deadline = Date.now() + 10_000;
      while (events.length < sent.length && Date.now() < deadline) await sleep(100);
      await sleep(500);
      expect(events).toEqual(sent);
      expect(new Set(heads).size).toBe(heads.length);
      expect(heads.length).toBeGreaterThan(3);
    } finally {
      await provider.removeAllListeners();
      await sleep(500); // ethers uninstalls its filter in the background
      provider.destroy();
      await rr.close();
    }
  });
});
