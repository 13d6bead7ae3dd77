/**
 * The EVM side of the upstream backend over two real anvil processes sharing their genesis (same
 * --timestamp and --chain-id, mining only on evm_mine with equal timestamps, so both chains stay
 * identical): ethers through the gateway, the response cache, failover while one anvil dies, and the
 * EVM filters and subscriptions fed by the pool's new heads.
 */
import { JsonRpcProvider, Wallet, toBeHex } from 'ethers';
import type { UpstreamPool } from '../../src/backends/upstream/upstream-pool';
import { UpstreamLifecycle, UpstreamPools } from '../../src/backends/upstream/upstream.module';
import { Anvil, ANVIL_ADDRESS_0, ANVIL_KEY_0 } from '../support/anvil';
import { evmRpcFlags } from '../support/backends';
import { startUpstreamGateway, type EvmEntry } from '../support/upstream';
import { EvmWsClient, rpc } from './evm-surface-app';
import { testProvider } from '../support/ethers-provider';

jest.setTimeout(60_000);

const GENESIS_TIME = 1_700_000_000;
const CHAIN_ID = 9001;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface EvmUpstreamApp {
  /** The EVM side of the upstream backend. */
  readonly backend: { readonly pool: UpstreamPool };
  readonly lifecycle: UpstreamLifecycle;
  readonly httpUrl: string;
  readonly wsUrl: string;
  close(): Promise<void>;
}

/** A gateway in upstream mode with only `[[upstream.evm]]` entries, seen through its EVM RPC. */
async function startApp(evm: EvmEntry[], settings: Record<string, string | number> = {}): Promise<EvmUpstreamApp> {
  const gw = await startUpstreamGateway([], { evm, settings, flags: evmRpcFlags('eth,net,web3') });
  return {
    backend: { pool: gw.app.get(UpstreamPools).evm },
    lifecycle: gw.app.get(UpstreamLifecycle),
    httpUrl: gw.evmHttpUrl!,
    wsUrl: gw.evmWsUrl!,
    close: () => gw.close(),
  };
}

describe('EVM upstream pool of two anvils', () => {
  let a: Anvil;
  let b: Anvil;
  let gw: EvmUpstreamApp;
  let provider: JsonRpcProvider;
  let time = GENESIS_TIME;

  /** One block on both anvils, same timestamp: the chains stay identical. */
  const mineBoth = async (blocks = 1) => {
    for (let i = 0; i < blocks; i++) {
      time += 2;
      await Promise.all([a, b].map((x) => x.rpc('evm_mine', [time])));
    }
  };

  beforeAll(async () => {
    [a, b] = await Promise.all([0, 1].map(() => Anvil.start({ timestamp: GENESIS_TIME, chainId: CHAIN_ID, noMining: true })));
    await mineBoth(3);
    // Every call of the suite to an anvil goes out in a JSON-RPC batch when others share its moment.
    gw = await startApp(
      [
        { name: 'a', url: a.url, ws: a.wsUrl },
        { name: 'b', url: b.url, ws: b.wsUrl },
      ],
      { batch_max_size: 16, batch_max_wait: '20ms' },
    );
    provider = testProvider(gw.httpUrl, { batchMaxCount: 1 }, CHAIN_ID);
    provider.pollingInterval = 100;
  });

  afterAll(async () => {
    provider?.destroy();
    await gw?.close();
    await a?.stop();
    await b?.stop();
  });

  it('serves blockNumber, getBlock and the chain id as the upstreams do', async () => {
    expect(await provider.getBlockNumber()).toBe(3);
    const block = await provider.getBlock(2);
    const direct = await a.rpc('eth_getBlockByNumber', ['0x2', false]);
    expect(block?.hash).toBe(direct.hash);
    expect((await b.rpc('eth_getBlockByNumber', ['0x2', false])).hash).toBe(direct.hash);
    expect(await rpc(gw.httpUrl, 'eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: toBeHex(CHAIN_ID) });
  });

  it('answers a past block from the cache, unchanged', async () => {
    const direct = await a.rpc('eth_getBlockByNumber', ['0x1', true]);
    const cache = gw.backend.pool.cache;
    const first = await rpc(gw.httpUrl, 'eth_getBlockByNumber', ['0x1', true]);
    const hits = cache.hits;
    const again = await rpc(gw.httpUrl, 'eth_getBlockByNumber', ['0x1', true]);
    expect(cache.hits).toBe(hits + 1);
    expect(first.result).toEqual(direct);
    expect(again.result).toEqual(direct);
  });

  it('answers a height past every head with the node’s own error at once: each anvil asked once, none again', async () => {
    const upstreams = gw.backend.pool.stats().upstreams;
    const asked = () => gw.backend.pool.stats().upstreams.reduce((n, u) => n + Number(u.requests), 0);
    const retries = () => gw.backend.pool.stats().upstreams.reduce((n, u) => n + Number(u.retries), 0);
    expect(upstreams).toHaveLength(2);
    const ahead = toBeHex((await provider.getBlockNumber()) + 50);
    const [before, retriesBefore] = [asked(), retries()];
    const direct = await fetch(a.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [ANVIL_ADDRESS_0, ahead] }) });
    const viaGateway = await rpc(gw.httpUrl, 'eth_getBalance', [ANVIL_ADDRESS_0, ahead]);
    expect(viaGateway.error).toEqual(((await direct.json()) as { error: unknown }).error);
    // One anvil was asked; with the height past every head, neither was asked again.
    expect(asked() - before).toBe(1);
    expect(retries()).toBe(retriesBefore);
  });

  it('splits a batch over both upstreams and answers it in order, invalid members included', async () => {
    const addresses = Array.from({ length: 40 }, () => Wallet.createRandom().address);
    const before = gw.backend.pool.upstreams.map((u) => u.counters.requests);
    const batch = [
      ...addresses.map((address, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getBalance', params: [address, 'latest'] })),
      { jsonrpc: '2.0', id: 'bad', method: 'eth_getBalance', params: ['0x12', 'latest'] },
      { jsonrpc: '2.0', id: 'none', method: 'eth_nope', params: [] },
    ];
    const res = await fetch(gw.httpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
    const answers = (await res.json()) as Array<{ id: unknown; result?: string; error?: { code: number } }>;
    expect(answers.map((x) => x.id)).toEqual(batch.map((x) => x.id));
    expect(answers.slice(0, 40).every((x) => x.result === '0x0')).toBe(true);
    expect(answers[40].error?.code).toBe(-32602);
    expect(answers[41].error?.code).toBe(-32601);
    const after = gw.backend.pool.upstreams.map((u) => u.counters.requests);
    // Members are routed one by one, least busy first: both upstreams take a share.
    expect(after.map((n, i) => n - before[i]).every((n) => n > 0)).toBe(true);
  });

  it('sends the reads of many clients to an anvil as batches; each client gets its own answer', async () => {
    const funded = (await a.rpc('eth_accounts', [])) as string[];
    const addresses = [...funded, ...Array.from({ length: 10 }, () => Wallet.createRandom().address)];
    const direct = await Promise.all(addresses.map((address) => a.rpc('eth_getBalance', [address, 'latest'])));
    const batched = () => gw.backend.pool.upstreams.reduce((n, u) => n + u.client.batches.calls, 0);
    const before = batched();
    const answers = await Promise.all(addresses.map((address) => rpc(gw.httpUrl, 'eth_getBalance', [address, 'latest'])));
    expect(answers.map((x) => x.result)).toEqual(direct);
    expect(batched() - before).toBeGreaterThan(1);
  });

  it('runs eth_call', async () => {
    // The identity precompile echoes its input.
    expect(await provider.call({ to: '0x0000000000000000000000000000000000000004', data: '0xc0ffee' })).toBe('0xc0ffee');
  });

  it('sends a transaction signed with anvil’s first dev key and waits for it', async () => {
    const wallet = new Wallet(ANVIL_KEY_0, provider);
    const to = Wallet.createRandom().address;
    const request = await wallet.populateTransaction({ to, value: 12345n });
    const raw = await wallet.signTransaction(request);
    const sent = await provider.broadcastTransaction(raw);
    // The gateway sent it to one anvil; the other gets it too, so that both mine the same block.
    await Promise.all([a, b].map((x) => x.rpc('eth_sendRawTransaction', [raw]).catch(() => undefined)));
    await mineBoth();
    const receipt = await sent.wait(1, 10_000);
    expect(receipt?.status).toBe(1);
    expect(receipt?.from).toBe(ANVIL_ADDRESS_0);
    expect(await provider.getBalance(to)).toBe(12345n);
  });

  it('delivers new blocks to a block filter and a newHeads subscription', async () => {
    const filter: string = await provider.send('eth_newBlockFilter', []);
    const ws = await EvmWsClient.open(gw.wsUrl);
    try {
      const sub = (await ws.call('eth_subscribe', ['newHeads'])).result as string;
      expect(sub).toMatch(/^0x/);
      await mineBoth();
      const head = await a.rpc('eth_getBlockByNumber', ['latest', false]);
      const note = await ws.notification(sub);
      expect(note.params.result.number).toBe(head.number);
      expect(note.params.result.hash).toBe(head.hash);
      let changes: string[] = [];
      for (let i = 0; i < 50 && changes.length === 0; i++) {
        changes = await provider.send('eth_getFilterChanges', [filter]);
        if (changes.length === 0) await sleep(100);
      }
      expect(changes).toEqual([head.hash]);
      expect(gw.lifecycle.evmHeads.counters.notifications).toBeGreaterThan(0);
    } finally {
      await ws.close();
    }
  });

  it('splits a long eth_getLogs range over the pool and answers like one upstream', async () => {
    const direct = await a.rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    expect(await provider.send('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])).toEqual(direct);
  });

  it('keeps answering while one anvil dies in the middle of a stream of reads', async () => {
    const failures: string[] = [];
    let done = 0;
    const reader = async (n: number) => {
      for (let i = 0; i < 40; i++) {
        // Distinct addresses keep the cache and the in-flight dedup out of the way.
        const address = toBeHex(BigInt(n * 1000 + i + 1), 20);
        try {
          await provider.getBalance(address);
          await provider.getBlock(i % 4);
        } catch (err) {
          failures.push((err as Error).message);
        }
        done++;
        await sleep(5);
      }
    };
    const readers = Promise.all([1, 2, 3, 4].map(reader));
    await sleep(60);
    a.kill();
    await readers;
    expect(done).toBe(160);
    expect(failures).toEqual([]);
    const stats = gw.backend.pool.stats();
    expect(stats.upstreams.find((u) => u.name === 'b')?.healthy).toBe(true);
  });
});

describe('upstream backend without [[upstream.evm]]', () => {
  it('answers EVM calls with a clear error', async () => {
    const gw = await startApp([]);
    try {
      const answer = await rpc(gw.httpUrl, 'eth_blockNumber');
      expect(answer.error).toEqual({ code: -32000, message: 'no EVM upstream configured' });
    } finally {
      await gw.close();
    }
  });
});
