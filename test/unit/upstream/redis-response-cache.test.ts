/**
 * The response cache's two tiers over a real Redis (127.0.0.1:6379): pools of the EVM backend in front of
 * small in-process EVM nodes, sharing immutable answers through Redis as their wire bytes; latest answers
 * kept in memory only; entries under the pool's chain and expiring; Redis unreachable, hanging or
 * coming back never failing a request.
 */
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { EVM_PROTOCOL } from '../../../src/backends/upstream/evm-protocol';
import { rawJsonOf, readResult, unreadBytes, UnreadJson } from '../../../src/rpc/result-json';
import { cacheRuleOf } from '../../../src/rpc/method';
import { RedisCache } from '../../../src/backends/upstream/redis-cache';
import { UPSTREAM_DEFAULTS } from '../../../src/config/upstream-config';
import { UpstreamPool } from '../../../src/backends/upstream/upstream-pool';
import { CONFIG_TABLES } from '../../../src/config/config-tables';
import { eth_gasPrice, eth_getBlockByNumber } from '../../../src/evm-rpc/definitions';
import type { Invoker } from '../../../src/rpc/invoker';
import { upstreamEvmInvoker } from '../../support/evm-methods';
import { TcpProxy } from '../../support/upstream';

const REDIS_URL = 'redis://127.0.0.1:6379';

/** A block as the node writes it: spacing that JSON.stringify would not reproduce. */
const blockText = (n: number) => `{ "number": "0x${n.toString(16)}",  "hash": "0x${n.toString(16).padStart(64, '0')}", "transactions": [] }`;
/** Block 0x50: an answer of some 30 KB, which is kept and shared as bytes. */
const LARGE = 0x50;
const largeBlockText = `{ "number": "0x50", "extraData": "0x${'ab'.repeat(15_000)}", "transactions": [] }`;

interface FakeNode {
  readonly url: string;
  /** Calls per method, health probes included. */
  readonly calls: Map<string, number>;
  close(): Promise<void>;
}

async function fakeNode(chainId: number): Promise<FakeNode> {
  const calls = new Map<string, number>();
  const server: HttpServer = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body);
      calls.set(method, (calls.get(method) ?? 0) + 1);
      const results: Record<string, string> = {
        eth_blockNumber: '"0x64"',
        eth_syncing: 'false',
        eth_chainId: `"0x${chainId.toString(16)}"`,
        eth_gasPrice: '"0x3b9aca00"',
        eth_getBlockByNumber: method !== 'eth_getBlockByNumber' ? '' : Number(params[0]) === LARGE ? largeBlockText : blockText(Number(params[0])),
      };
      res.setHeader('content-type', 'application/json');
      res.end(`{"jsonrpc":"2.0","id":${id},"result":${results[method]}}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, calls, close: () => new Promise((r) => server.close(() => r())) };
}

/** Accepts connections and never answers: a Redis that hangs. */
async function silentServer(): Promise<{ readonly url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10));
}

const block = (backend: Invoker, n: number) => backend.invoke(eth_getBlockByNumber, { block: { kind: 'number', number: BigInt(n) }, fullTransactions: false });

describe('response cache with Redis', () => {
  beforeAll(() => Logger.overrideLogger(false));

  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  let prefix: string;
  let node: FakeNode;
  const pools: UpstreamPool[] = [];
  const connections: RedisCache[] = [];

  /**
   * A Redis connection; redis_timeout 10 s unless a test sets it: a lookup slower than it is a miss, and a
   * machine that pauses for longer than the default 100 ms must not make one.
   */
  function connect(cache: Partial<typeof CONFIG_TABLES.cache.defaults> = {}): RedisCache {
    const connection = new RedisCache({ ...CONFIG_TABLES.cache.defaults, redis_url: REDIS_URL, redis_key_prefix: prefix, redis_timeout: 10_000, ...cache });
    connections.push(connection);
    return connection;
  }

  /** A pool as one replica runs it: by default with a Redis connection of its own. */
  async function startPool(target: FakeNode, connection = connect()) {
    const settings = { ...UPSTREAM_DEFAULTS, hedge_quantile: 0 };
    const pool = new UpstreamPool([{ name: 'a', url: target.url, weight: 1 }], settings, { maxBytes: 1 << 20, redis: connection }, EVM_PROTOCOL, 'EVM');
    pools.push(pool);
    await pool.checkHealth();
    return { pool, backend: upstreamEvmInvoker(pool), stats: () => pool.stats().cache };
  }

  beforeEach(async () => {
    prefix = `rpcgw-test:${randomUUID()}:`;
    node = await fakeNode(9001);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    for (const pool of pools.splice(0)) pool.stop();
    await Promise.all(connections.splice(0).map((c) => c.close()));
    await node.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('serves a past block read by one replica to another from Redis, as the node wrote it', async () => {
    const a = await startPool(node);
    const b = await startPool(node);
    await until(() => a.stats().redis?.up === true && b.stats().redis?.up === true);

    const first = await block(a.backend, 7);
    expect(rawJsonOf(first)).toBe(blockText(7));
    await until(() => a.stats().redis?.writes === 1);
    expect(node.calls.get('eth_getBlockByNumber')).toBe(1);

    const shared = await block(b.backend, 7);
    expect(node.calls.get('eth_getBlockByNumber')).toBe(1);
    expect(rawJsonOf(shared)).toBe(blockText(7));
    expect(shared).toEqual(first);

    // The Redis hit filled B's memory.
    await block(b.backend, 7);
    expect(b.stats().tiers).toEqual({ memory: { hits: 1, misses: 1 }, redis: { hits: 1, misses: 0 } });
    expect(b.stats()).toMatchObject({ hits: 2, misses: 0 });
    expect(a.stats()).toMatchObject({ hits: 0, misses: 1, tiers: { memory: { hits: 0, misses: 1 }, redis: { hits: 0, misses: 1 } } });
  });

  it('shares a large answer as its bytes: written to Redis as the node sent them, handed on unread from there', async () => {
    const a = await startPool(node);
    const b = await startPool(node);
    await until(() => a.stats().redis?.up === true && b.stats().redis?.up === true);
    const args = { block: { kind: 'number', number: BigInt(LARGE) }, fullTransactions: false } as const;
    // As the forward path asks for a client's call that no hook reads.
    const read = (pool: UpstreamPool) =>
      pool.request({ method: 'eth_getBlockByNumber', params: ['0x50', false], needs: { height: BigInt(LARGE) }, idempotent: true, cache: cacheRuleOf(eth_getBlockByNumber, args), unread: true });
    const bytesOf = (result: unknown) => {
      expect(result).toBeInstanceOf(UnreadJson);
      return Buffer.concat(unreadBytes(result)!);
    };

    expect(bytesOf(await read(a.pool)).toString()).toBe(largeBlockText);
    await until(() => a.stats().redis?.writes === 1);
    expect(await redis.getBuffer(`${prefix}evm:9001:eth_getBlockByNumber["0x50",false]`)).toEqual(Buffer.from(largeBlockText));

    const shared = await read(b.pool);
    expect(node.calls.get('eth_getBlockByNumber')).toBe(1);
    expect(b.stats().tiers.redis).toEqual({ hits: 1, misses: 0 });
    expect(bytesOf(shared).toString()).toBe(largeBlockText);
    expect(readResult(shared)).toEqual(JSON.parse(largeBlockText));
  });

  it('keys answers by pool and chain, so another chain sharing the Redis never sees them', async () => {
    const other = await fakeNode(1);
    try {
      const a = await startPool(node);
      const c = await startPool(other);
      await until(() => a.stats().redis?.up === true && c.stats().redis?.up === true);
      await block(a.backend, 7);
      await until(() => a.stats().redis?.writes === 1);
      expect(await redis.keys(`${prefix}*`)).toEqual([`${prefix}evm:9001:eth_getBlockByNumber["0x7",false]`]);

      await block(c.backend, 7);
      expect(other.calls.get('eth_getBlockByNumber')).toBe(1);
      expect(c.stats().tiers.redis).toEqual({ hits: 0, misses: 1 });
    } finally {
      await other.close();
    }
  });

  it('writes immutable answers with redis_ttl, or without expiry when it is 0', async () => {
    const a = await startPool(node, connect({ redis_ttl: 60_000 }));
    const forever = await startPool(node, connect({ redis_ttl: 0, redis_key_prefix: `${prefix}forever:` }));
    await until(() => a.stats().redis?.up === true && forever.stats().redis?.up === true);
    await block(a.backend, 7);
    await block(forever.backend, 7);
    await until(() => a.stats().redis?.writes === 1 && forever.stats().redis?.writes === 1);

    const ttl = await redis.pttl(`${prefix}evm:9001:eth_getBlockByNumber["0x7",false]`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await redis.pttl(`${prefix}forever:evm:9001:eth_getBlockByNumber["0x7",false]`)).toBe(-1);
  });

  it('keeps latest answers in memory only', async () => {
    const a = await startPool(node);
    const b = await startPool(node);
    await until(() => a.stats().redis?.up === true && b.stats().redis?.up === true);
    // Kept from its second answer (docs/upstream.md#cache): the third call is the first from memory.
    for (let i = 0; i < 3; i++) expect(await a.backend.invoke(eth_gasPrice, {})).toBe('0x3b9aca00');
    expect(node.calls.get('eth_gasPrice')).toBe(2);

    expect(await b.backend.invoke(eth_gasPrice, {})).toBe('0x3b9aca00');
    expect(node.calls.get('eth_gasPrice')).toBe(3);
    expect(await redis.keys(`${prefix}*`)).toEqual([]);
    expect(b.stats().tiers.redis).toEqual({ hits: 0, misses: 0 });
  });

  it('answers every request when Redis is unreachable, counting misses and errors, with one warning for both pools', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const unreachable = connect({ redis_url: 'redis://127.0.0.1:1' });
    const a = await startPool(node, unreachable);
    const b = await startPool(node, unreachable);
    await until(() => unreachable.outages === 1);

    for (const n of [1, 2, 3, 4, 5]) expect(rawJsonOf(await block(a.backend, n))).toBe(blockText(n));
    expect(rawJsonOf(await block(b.backend, 6))).toBe(blockText(6));
    expect(node.calls.get('eth_getBlockByNumber')).toBe(6);
    expect(a.stats()).toMatchObject({ hits: 0, misses: 5, tiers: { redis: { hits: 0, misses: 5 } } });
    // Five lookups and five writes Redis did not serve.
    expect(a.stats().redis).toEqual({ up: false, outages: 1, errors: 10, writes: 0 });
    expect(b.stats().redis).toEqual({ up: false, outages: 1, errors: 2, writes: 0 });
    const warnings = warn.mock.calls.filter(([message]) => String(message).includes('Redis cache'));
    expect(warnings).toEqual([[expect.stringContaining('Redis cache at redis://127.0.0.1:1 unavailable')]]);
  });

  it('answers every request when Redis accepts connections but never replies', async () => {
    const silent = await silentServer();
    try {
      const a = await startPool(node, connect({ redis_url: silent.url, redis_timeout: 50 }));
      await until(() => a.stats().redis?.up === true);
      for (const n of [1, 2, 3]) expect(rawJsonOf(await block(a.backend, n))).toBe(blockText(n));
      expect(a.stats()).toMatchObject({ misses: 3, tiers: { redis: { hits: 0, misses: 3 } } });
      expect(a.stats().redis).toMatchObject({ up: false, outages: 1, writes: 0 });
    } finally {
      await silent.close();
    }
  });

  it('uses Redis again once it is back, after one warning for the outage', async () => {
    const proxy = await new TcpProxy(6379).start();
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      const a = await startPool(node, connect({ redis_url: `redis://127.0.0.1:${proxy.port}` }));
      await until(() => a.stats().redis?.up === true);
      await proxy.kill();
      await until(() => a.stats().redis?.up === false);
      for (const n of [1, 2]) expect(rawJsonOf(await block(a.backend, n))).toBe(blockText(n));

      await proxy.revive();
      await until(() => a.stats().redis?.up === true);
      await block(a.backend, 3);
      await until(() => a.stats().redis?.writes === 1);
      expect(await redis.keys(`${prefix}*`)).toEqual([`${prefix}evm:9001:eth_getBlockByNumber["0x3",false]`]);
      expect(a.stats().redis?.outages).toBe(1);
      expect(warn.mock.calls.filter(([message]) => String(message).includes('Redis cache'))).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
