/**
 * A devnet follower (`--devnet.follow`) beside a validator, both real gateways on real sockets,
 * checked with the real clients: the follower serves the leader's chain on the node RPC and the EVM
 * RPC, forwards what is broadcast to it, publishes the blocks it replays, lags when paused and
 * catches up when resumed or restarted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { ContractFactory, JsonRpcProvider, Wallet, type Contract } from 'ethers';
import { DevnetNode } from '../../src/backends/embedded/devnet-node';
import type { Follower } from '../../src/devnet/follower/follower';
import { compileProbe } from '../unit/embedded/evm-harness';
import { evmRpcFlags } from '../support/backends';
import { newBlockHeights } from '../support/comet';
import { call, post, startTestGateway, waitForHeight, waitForStatus, type TestGateway } from '../support/gateway';
import { testProvider } from '../support/ethers-provider';

jest.setTimeout(60_000);

/** The first account of the well-known development mnemonic, prefunded by the devnet. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const FLAGS = { ...evmRpcFlags('eth,net,web3'), 'devnet.block_time': '200ms' };

let leader: TestGateway;
let follower: TestGateway;
let followerHome: string;

const startFollower = () => startTestGateway({ ...FLAGS, 'devnet.follow': leader.url }, followerHome);
const followerOf = (gw: TestGateway): Follower => gw.app.get(DevnetNode).devnet.follower!;
const evmUrl = (gw: TestGateway): string => gw.evmHttpUrl!;
const height = async (gw: TestGateway): Promise<number> => Number((await call(gw.url, 'status')).sync_info.latest_block_height);

/** Resolves once the follower has every block the leader had when called. */
async function caughtUp(): Promise<number> {
  const target = await height(leader);
  await waitForHeight(follower.url, target);
  return target;
}

beforeAll(async () => {
  leader = await startTestGateway(FLAGS);
  await waitForHeight(leader.url, 3);
  followerHome = mkdtempSync(join(tmpdir(), 'rpcgw-follower-'));
  follower = await startFollower();
});

afterAll(async () => {
  await follower?.close();
  await leader?.close();
  rmSync(followerHome, { recursive: true, force: true });
});

describe('a follower gateway', () => {
  it('serves the leader’s blocks, app hashes and genesis to CosmJS, and is not catching up', async () => {
    const top = await caughtUp();
    const [ours, theirs] = await Promise.all([Comet38Client.connect(follower.url), Comet38Client.connect(leader.url)]);
    try {
      for (let h = 1; h <= top; h++) {
        const [a, b] = await Promise.all([ours.block(h), theirs.block(h)]);
        expect(a.blockId).toEqual(b.blockId);
        expect(a.block.header.appHash).toEqual(b.block.header.appHash);
        // CosmJS leaves block_results' app_hash out; read it from the wire.
        const [ra, rb] = await Promise.all([call(follower.url, 'block_results', { height: String(h) }), call(leader.url, 'block_results', { height: String(h) })]);
        expect(ra.app_hash).toBe(rb.app_hash);
        expect(ra).toEqual(rb);
      }
      expect(await ours.genesis()).toEqual(await theirs.genesis());
      const status = await ours.status();
      expect(status.nodeInfo.network).toBe('rpcgw-devnet-1');
      expect(status.syncInfo.earliestBlockHeight).toBe(1);
      await waitForStatus(follower.url, (s) => s.sync_info.catching_up === false, 'the follower never caught up');
    } finally {
      ours.disconnect();
      theirs.disconnect();
    }
  });

  it('forwards a kvstore tx to the leader; both index it', async () => {
    const client = await Comet38Client.connect(follower.url);
    try {
      const tx = new TextEncoder().encode(`follower=${Date.now()}`);
      const committed = await client.broadcastTxCommit({ tx });
      expect(committed.txResult?.code).toBe(0);
      expect(await call(follower.url, 'unconfirmed_txs')).toMatchObject({ n_txs: '0' });
      const [here, there] = await Promise.all([
        call(follower.url, 'tx_search', { query: `tx.height=${committed.height}` }),
        call(leader.url, 'tx_search', { query: `tx.height=${committed.height}` }),
      ]);
      expect(here).toEqual(there);
      expect(here.txs).toHaveLength(1);
    } finally {
      client.disconnect();
    }
  });

  it('forwards an EVM tx to the leader and serves its block, receipt and balances like the leader', async () => {
    const provider = testProvider(evmUrl(follower));
    const leaderEvm = testProvider(evmUrl(leader));
    try {
      const wallet = new Wallet(DEV_KEY, provider);
      const receipt = await (await wallet.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: 12345n })).wait();
      expect(receipt!.status).toBe(1);
      const theirs = await leaderEvm.getTransactionReceipt(receipt!.hash);
      expect(theirs!.blockHash).toBe(receipt!.blockHash);
      expect(theirs!.gasUsed).toBe(receipt!.gasUsed);
      const [a, b] = await Promise.all([provider.getBlock(receipt!.blockNumber), leaderEvm.getBlock(receipt!.blockNumber)]);
      expect(a!.hash).toBe(b!.hash);
      expect(a!.transactions).toEqual([receipt!.hash]);
      const at = receipt!.blockNumber;
      expect(await provider.getBalance('0x000000000000000000000000000000000000dEaD', at)).toBe(12345n);
      expect(await provider.getBalance(wallet.address, at)).toBe(await leaderEvm.getBalance(wallet.address, at));
      expect(await provider.getBalance(wallet.address, at - 1)).toBe(await leaderEvm.getBalance(wallet.address, at - 1));
    } finally {
      provider.destroy();
      leaderEvm.destroy();
    }
  });

  it('runs a contract deployed through it: eth_call at past heights, logs and a block filter as on the leader', async () => {
    const provider = testProvider(evmUrl(follower));
    const leaderEvm = testProvider(evmUrl(leader));
    try {
      const blockFilter: string = await provider.send('eth_newBlockFilter', []);
      const { abi, bytecode } = compileProbe();
      const probe = (await new ContractFactory(abi, bytecode, new Wallet(DEV_KEY, provider)).deploy(7n)) as Contract;
      const deployed = await probe.deploymentTransaction()!.wait();
      const bumped = await (await probe.bump('from the follower')).wait();
      const address = await probe.getAddress();
      const countAt = (p: JsonRpcProvider, blockTag: number) => (probe.connect(p) as Contract).count({ blockTag });
      expect(await countAt(provider, deployed!.blockNumber)).toBe(7n);
      expect(await countAt(provider, bumped!.blockNumber)).toBe(8n);
      expect(await countAt(leaderEvm, bumped!.blockNumber)).toBe(8n);
      const filter = { address, fromBlock: deployed!.blockNumber, toBlock: bumped!.blockNumber };
      const logs = await provider.getLogs(filter);
      expect(logs.map((l) => probe.interface.parseLog(l)!.args.note)).toEqual(['from the follower']);
      expect(logs.map((l) => l.toJSON())).toEqual((await leaderEvm.getLogs(filter)).map((l) => l.toJSON()));
      const hashes: string[] = await provider.send('eth_getFilterChanges', [blockFilter]);
      expect(hashes).toContain(bumped!.blockHash);
    } finally {
      provider.destroy();
      leaderEvm.destroy();
    }
  });

  it('delivers NewBlock events of consecutive heights to a WebSocket subscriber', async () => {
    const heights = await newBlockHeights(follower.url, 4);
    expect(heights.slice(1)).toEqual(heights.slice(0, -1).map((h) => h + 1));
  });

  it('lags while paused (catching_up) and catches up once resumed', async () => {
    await caughtUp();
    followerOf(follower).pause();
    const stopped = await height(follower);
    await waitForHeight(leader.url, stopped + 4);
    const paused = (await call(follower.url, 'status')).sync_info;
    expect(paused.catching_up).toBe(true);
    expect(Number(paused.latest_block_height)).toBeLessThanOrEqual(stopped + 1);
    const syncing = await post(evmUrl(follower), { jsonrpc: '2.0', id: 1, method: 'eth_syncing', params: [] });
    expect(syncing.json.result).toEqual({ startingBlock: '0x1', currentBlock: expect.stringMatching(/^0x[0-9a-f]+$/) });
    followerOf(follower).resume();
    await caughtUp();
    await waitForStatus(follower.url, (s) => s.sync_info.catching_up === false, 'the follower never caught up');
  });

  it('catches up after a restart on the same home', async () => {
    await caughtUp();
    await follower.close();
    const before = await height(leader);
    await waitForHeight(leader.url, before + 3);
    follower = await startFollower();
    expect(await height(follower)).toBeGreaterThanOrEqual(before - 1);
    const top = await caughtUp();
    const [a, b] = await Promise.all([call(follower.url, 'block', { height: String(top) }), call(leader.url, 'block', { height: String(top) })]);
    expect(a.block_id).toEqual(b.block_id);
  });
});
