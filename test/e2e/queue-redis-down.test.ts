/**
 * The queue's Redis goes away (a redis-server of this test's own, on another port, stopped) under a
 * gateway on the embedded devnet: broadcasts answer a clear error and nothing is queued half-way, reads
 * and the rest of the gateway keep working, and once Redis is back broadcasts go through again without
 * a restart. A gateway started while Redis is down serves reads and refuses broadcasts the same way.
 */
import { Wallet } from 'ethers';
import { evmRpcFlags } from '../support/backends';
import { call, startTestGateway, type TestGateway } from '../support/gateway';
import { RedisServer } from '../support/redis-server';
import { DEV_KEY, evmCall, kvTx, latestHeight, nodeCall, until, waitForInclusion } from './queue-support';

jest.setTimeout(60_000);

describe('Redis of the queue unreachable', () => {
  let redis: RedisServer;
  let gw: TestGateway;
  const unreachable = () => `broadcast queue unavailable: Redis at redis://127.0.0.1:${redis.port} is unreachable; the transaction was not accepted, send it again later`;

  beforeAll(async () => {
    redis = await RedisServer.start();
    gw = await startTestGateway({
      ...evmRpcFlags('eth,net,web3'),
      'queue.redis_url': redis.url,
      'queue.check_timeout': '3s',
      'devnet.block_time': '200ms',
    });
  });

  afterAll(async () => {
    await gw?.close();
    await redis?.stop();
  });

  it('answers a clear error while Redis is down, keeps serving reads, and resumes when it is back', async () => {
    const before = kvTx(`before-${redis.port}`);
    const beforeFrom = (await latestHeight(gw.url)) + 1;
    expect((await nodeCall(gw.url, 'broadcast_tx_sync', { tx: before.base64 })).result).toMatchObject({ code: 0, hash: before.hash });
    await waitForInclusion(gw.url, beforeFrom, [before.hash]);

    await redis.stop();
    const during = kvTx(`during-${redis.port}`);
    await until(async () => (await nodeCall(gw.url, 'broadcast_tx_sync', { tx: during.base64 })).error !== undefined, 5_000, 'the refusal');
    for (const method of ['broadcast_tx_async', 'broadcast_tx_sync', 'broadcast_tx_commit']) {
      expect(await nodeCall(gw.url, method, { tx: during.base64 })).toMatchObject({ error: { code: -32603, message: 'Internal error', data: unreachable() } });
    }
    const wallet = new Wallet(DEV_KEY);
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: BigInt(await evmCall(gw.evmHttpUrl!, 'eth_chainId', [])),
      nonce: Number(await evmCall(gw.evmHttpUrl!, 'eth_getTransactionCount', [wallet.address, 'pending'])),
      to: wallet.address,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    expect(await evmCall(gw.evmHttpUrl!, 'eth_sendRawTransaction', [raw]).catch((err) => err.rpc)).toEqual({ code: -32000, message: unreachable() });

    // Reads are untouched.
    const height = await latestHeight(gw.url);
    expect(Number(await evmCall(gw.evmHttpUrl!, 'eth_blockNumber', []))).toBeGreaterThanOrEqual(height);
    expect(await call(gw.url, 'abci_query', { data: Buffer.from(`before-${redis.port}`).toString('hex') })).toMatchObject({ response: { value: Buffer.from('v').toString('base64') } });

    // Nothing refused was kept: it is not in a block.
    await new Promise((r) => setTimeout(r, 600));
    expect(await nodeCall(gw.url, 'tx', { hash: Buffer.from(during.hash, 'hex').toString('base64') })).toMatchObject({ error: { data: `tx (${during.hash}) not found` } });

    await redis.restart();
    const from = (await latestHeight(gw.url)) + 1;
    await until(async () => (await nodeCall(gw.url, 'broadcast_tx_sync', { tx: during.base64 })).result?.code === 0, 10_000, 'broadcasts again');
    expect(await evmCall(gw.evmHttpUrl!, 'eth_sendRawTransaction', [raw])).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await waitForInclusion(gw.url, from, [during.hash])).get(during.hash)).toBe(1);
  });

  it('starts while Redis is down: reads served, broadcasts refused, then taken once Redis is up', async () => {
    await redis.stop();
    const late = await startTestGateway({ 'queue.redis_url': redis.url, 'devnet.block_time': '200ms' });
    try {
      expect((await call(late.url, 'status')).node_info.network).toBe('rpcgw-devnet-1');
      const tx = kvTx(`late-${redis.port}`);
      expect((await nodeCall(late.url, 'broadcast_tx_async', { tx: tx.base64 })).error).toEqual({ code: -32603, message: 'Internal error', data: unreachable() });
      await redis.restart();
      await until(async () => (await nodeCall(late.url, 'broadcast_tx_async', { tx: tx.base64 })).result?.hash === tx.hash, 10_000, 'the queue');
    } finally {
      await late.close();
    }
  });
});
