/**
 * Two gateway replicas in upstream mode in front of one embedded-devnet gateway, sharing the response
 * cache through a real Redis (127.0.0.1:6379): what one replica read, the other serves from Redis.
 */
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { get, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';
import { Exposition } from '../unit/metrics/exposition';

jest.setTimeout(60_000);

const REDIS_URL = 'redis://127.0.0.1:6379';

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
}

describe('two replicas sharing one Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  const prefix = `rpcgw-test:${randomUUID()}:`;
  let devnet: TestGateway;
  let a: UpstreamGateway;
  let b: UpstreamGateway;

  beforeAll(async () => {
    devnet = await startTestGateway({ 'devnet.block_time': '200ms' });
    await waitForHeight(devnet.url, 3);
    const replica = () =>
      startUpstreamGateway([{ name: 'devnet', url: devnet.url }], {
        flags: {
          'cache.redis_url': REDIS_URL,
          'cache.redis_key_prefix': prefix,
          // A lookup slower than redis_timeout is a miss: a machine that pauses for longer must not make one.
          'cache.redis_timeout': '10s',
          'instrumentation.prometheus': 'true',
          'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
        },
      });
    [a, b] = await Promise.all([replica(), replica()]);
    await until(() => a.backend.pool.stats().cache.redis?.up === true && b.backend.pool.stats().cache.redis?.up === true);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await devnet?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('serves a past block read through one replica from Redis on the other, byte for byte', async () => {
    const request = { jsonrpc: '2.0', id: 7, method: 'block', params: { height: '2' } };
    const direct = await post(devnet.url, request);

    expect((await post(a.url, request)).text).toBe(direct.text);
    await until(() => a.backend.pool.stats().cache.redis?.writes === 1);
    expect(await redis.keys(`${prefix}*`)).toEqual([`${prefix}node:rpcgw-devnet-1:block{"height":"2"}`]);

    const upstreamRequests = b.backend.pool.upstreams[0].counters.requests;
    const fromRedis = await post(b.url, request);
    expect(fromRedis.text).toBe(direct.text);
    expect(b.backend.pool.upstreams[0].counters.requests).toBe(upstreamRequests);
    expect(b.backend.pool.stats().cache.tiers.redis).toEqual({ hits: 1, misses: 0 });

    const m = new Exposition((await get(b.metricsUrl!, '/metrics')).text);
    expect(m.value('rpcgw_cache_hits_total', { interface: 'node', tier: 'redis' })).toBe(1);
    expect(m.value('rpcgw_cache_misses_total', { interface: 'node', tier: 'memory' })).toBe(1);
    expect(m.value('rpcgw_cache_hits_total', { interface: 'node', tier: 'memory' })).toBe(0);
    expect(m.value('rpcgw_cache_redis_up', {})).toBe(1);
    expect(m.value('rpcgw_cache_redis_errors_total', { interface: 'node' })).toBe(0);
  });
});
