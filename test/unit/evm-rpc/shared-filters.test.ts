/**
 * Polling filters shared through Redis (the real one at 127.0.0.1:6379, a fresh key prefix per test):
 * the store's atomic steps, and two SharedFilters (two replicas) over one fake chain.
 */
import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Transaction, Wallet } from 'ethers';
import Redis from 'ioredis';
import { uncachedDevnetMethods } from '../../support/devnet-methods';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { EventBus } from '../../../src/events';
import { RedisFilterStore } from '../../../src/evm-rpc/filters/redis-filter-store';
import { SharedFilters } from '../../../src/evm-rpc/filters/shared-filters';
import { ApplicationError } from '../../../src/rpc/errors';
import { Invoker } from '../../../src/rpc/invoker';
import type { Json } from '../../../src/rpc/json';
import { CHAIN_ID, DEV_KEYS, EMITTER, FakeEvmChain, TOPIC } from '../../e2e/evm-surface-backend';

Logger.overrideLogger(false);

const REDIS_URL = 'redis://127.0.0.1:6379';
const wallet = new Wallet(DEV_KEYS[0]);
let nonce = 0;
async function signedTx(to: string, data = '0x'): Promise<Transaction> {
  return Transaction.from(await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: nonce++, to, data, gasLimit: 50_000, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }));
}

const config = { jsonRpc: { 'filter-cap': 3, 'block-range-cap': 1000, 'logs-cap': 1000 } } as GatewayConfigService;
const clients: Redis[] = [];
let prefix: string;

function client(): Redis {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  clients.push(redis);
  return redis;
}

function store(ttlMs = 60_000, pendingMax = 1_000): RedisFilterStore {
  return new RedisFilterStore(client(), prefix, { ttlMs, pendingMax });
}

beforeEach(() => {
  prefix = `rpcgw:test:filters:${randomBytes(6).toString('hex')}:`;
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('RedisFilterStore', () => {
  it('filter-cap counts the filters of every replica; an ended lease frees its place', async () => {
    // Leases of 1 s: the checks before they end have that long, however busy the machine.
    const [a, b] = [store(1000), store(1000)];
    expect(await a.create('1', 'blocks', '{}', 5n, 2, 5n)).toBe(true);
    expect(await b.create('2', 'logs', '{}', 5n, 2, 5n)).toBe(true);
    expect(await a.create('3', 'blocks', '{}', 5n, 2, 5n)).toBe(false);
    expect(await b.count()).toBe(2);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await a.get('1')).toBeUndefined();
    expect(await b.create('3', 'blocks', '{}', 5n, 2, 5n)).toBe(true);
    expect(await a.count()).toBe(1);
  });

  it('a cursor moves once when two replicas advance it from the same place', async () => {
    const [a, b] = [store(), store()];
    await a.create('f', 'blocks', '{}', 10n, 10, 10n);
    const moves = await Promise.all([a.advance('f', '10', '12'), b.advance('f', '10', '13')]);
    expect(moves.sort()).toEqual(['advanced', 'raced']);
    expect(['12', '13']).toContain((await a.get('f'))!.cursor);
    expect(await a.advance('gone', '1', '2')).toBe('missing');
  });

  it('polls renew the lease; uninstall removes filter and lease', async () => {
    // Four polls 300 ms apart outlive a lease of 1 s only by renewing it; a poll may come 700 ms late on a busy machine.
    const a = store(1000);
    await a.create('f', 'blocks', '{}', 1n, 10, 1n);
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 300));
      expect(await a.advance('f', '1', '1')).toBe('advanced');
    }
    expect(await a.remove('f')).toBe(true);
    expect(await a.remove('f')).toBe(false);
    expect(await a.count()).toBe(0);
  });

  it('the pending stream: one replica publishes each height, in order; racing claims share the hashes out', async () => {
    const [a, b] = [store(), store()];
    await a.create('p', 'pendingTransactions', '{}', 0n, 10, 7n);
    expect(await a.publishedHeight()).toBe(7n);
    expect(await a.publish(9n, ['0x09'])).toBe(false);
    expect(await a.publish(8n, ['0x81', '0x82'])).toBe(true);
    expect(await b.publish(8n, ['0x81', '0x82'])).toBe(false);
    const hashes = Array.from({ length: 50 }, (_, i) => `0x${i.toString(16)}`);
    expect(await b.publish(9n, hashes)).toBe(true);
    const claims = await Promise.all([a.claimPending('p', 7), b.claimPending('p', 7), a.claimPending('p', 100), b.claimPending('p', 100)]);
    const all = claims.flatMap((c) => c!);
    expect(all.sort()).toEqual(['0x81', '0x82', ...hashes].sort());
    expect(await a.claimPending('p', 100)).toEqual([]);
    expect(await a.claimPending('missing', 100)).toBeUndefined();
  });
});

describe('SharedFilters on two replicas', () => {
  let bus: EventBus;
  let chain: FakeEvmChain;
  let a: SharedFilters;
  let b: SharedFilters;

  function replica(): SharedFilters {
    const evm = new Invoker(uncachedDevnetMethods(chain.handlers(config)), { config });
    return new SharedFilters(store(), evm, { cap: () => config.jsonRpc['filter-cap'], maxStep: 4 });
  }

  beforeEach(() => {
    bus = new EventBus();
    chain = new FakeEvmChain(bus);
    [a, b] = [replica(), replica()];
  });
  afterEach(() => [a, b].forEach((f) => f.close()));

  it('a block filter polled alternately on both replicas delivers each block once, in order', async () => {
    const id = await a.create('blocks');
    const seen: Json[] = [];
    const mined: string[] = [];
    for (let i = 0; i < 12; i++) {
      mined.push(chain.mine([]).hash);
      if (i % 3 !== 1) seen.push(...(await (i % 2 === 0 ? b : a).changes(id)));
    }
    // maxStep 4: the rest comes with later polls.
    for (let i = 0; i < 4; i++) seen.push(...(await a.changes(id)));
    expect(seen).toEqual(mined);
  });

  it('two racing polls of one filter deliver every block exactly once between them', async () => {
    const id = await a.create('blocks');
    const mined: string[] = [];
    const seen: Json[] = [];
    for (let round = 0; round < 5; round++) {
      mined.push(chain.mine([]).hash, chain.mine([]).hash);
      const answers = await Promise.all([a.changes(id), b.changes(id), a.changes(id), b.changes(id)]);
      seen.push(...answers.flat());
    }
    expect(seen.sort()).toEqual(mined.sort());
  });

  it('a log filter keeps to its criteria and its fixed start', async () => {
    const byTopic = await b.create('logs', { topics: [[TOPIC]] });
    const other = await a.create('logs', { address: ['0x' + '99'.repeat(20)] });
    const tx = await signedTx(EMITTER, '0x01');
    chain.mine([tx]);
    const logs = (await a.changes(byTopic)) as Array<Record<string, unknown>>;
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ address: EMITTER, topics: [TOPIC], data: '0x01', transactionHash: tx.hash });
    expect(await b.changes(byTopic)).toEqual([]);
    expect(await b.changes(other)).toEqual([]);
    const later = await a.create('logs', { fromBlock: { kind: 'number', number: 100n } });
    chain.mine([await signedTx(EMITTER)]);
    expect(await b.changes(later)).toEqual([]);
  });

  it('getFilterLogs on the other replica; only for log filters', async () => {
    chain.mine([await signedTx(EMITTER)]);
    const logs = await a.create('logs', { fromBlock: { kind: 'number', number: 1n } });
    expect(await b.logs(logs)).toHaveLength(1);
    const blocks = await a.create('blocks');
    await expect(b.logs(blocks)).rejects.toThrow(`filter ${blocks} doesn't have a LogsSubscription type: got 5`);
  });

  it('a pending transaction filter reads the shared stream from either replica', async () => {
    const id = await a.create('pendingTransactions');
    const [t1, t2, t3] = [await signedTx(EMITTER), await signedTx(EMITTER), await signedTx(EMITTER)];
    chain.mine([t1]);
    chain.mine([t2, t3]);
    expect(await b.changes(id)).toEqual([t1.hash, t2.hash, t3.hash]);
    expect(await a.changes(id)).toEqual([]);
    const t4 = await signedTx(EMITTER);
    chain.mine([t4]);
    const both = await Promise.all([a.changes(id), b.changes(id)]);
    expect(both.flat()).toEqual([t4.hash]);
  });

  it('uninstall on one replica removes the filter for the other; unknown ids', async () => {
    const id = await a.create('blocks');
    expect(await b.uninstall(id)).toBe(true);
    await expect(a.changes(id)).rejects.toThrow(`filter ${id} not found`);
    expect(await a.uninstall(id)).toBe(false);
    await expect(b.changes('0x1234')).rejects.toThrow('filter 0x1234 not found');
  });

  it('filter-cap holds across replicas, with the error of each kind', async () => {
    await a.create('blocks');
    await b.create('logs');
    await a.create('pendingTransactions');
    const err = await b.create('blocks').catch((e: unknown) => e as ApplicationError);
    expect(err).toBeInstanceOf(ApplicationError);
    expect((err as ApplicationError).toJSON()).toEqual({ code: -32000, message: 'error creating block filter: max limit reached' });
    await expect(a.create('logs')).rejects.toThrow('error creating filter: max limit reached');
  });

  it('an impossible range is refused before anything is stored', async () => {
    await expect(a.create('logs', { fromBlock: { kind: 'number', number: 5n }, toBlock: { kind: 'number', number: 2n } })).rejects.toThrow(
      'invalid from and to block combination: from > to (5 > 2)',
    );
  });
});

describe('SharedFilters without Redis', () => {
  it('answers a clear error, and never hangs', async () => {
    const chain = new FakeEvmChain(new EventBus());
    const evm = new Invoker(uncachedDevnetMethods(chain.handlers(config)), { config });
    const redis = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
    clients.push(redis);
    const filters = new SharedFilters(new RedisFilterStore(redis, prefix, { ttlMs: 1000, pendingMax: 100 }), evm, { cap: () => 3 });
    await expect(filters.create('blocks')).rejects.toThrow('filters unavailable: their store cannot be reached');
    await expect(filters.changes('0x1')).rejects.toThrow('filters unavailable');
  });
});
