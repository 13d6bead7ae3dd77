/**
 * The response cache's Redis down and back under a gateway process in upstream mode: a redis-server of
 * this test's own (stopped with SIGKILL, started again empty on its port) and an anvil reached through
 * a FaultyUpstream proxy that counts the reads it passes on. With nothing kept in memory
 * (`[cache] max_bytes = 0`), every immutable read is looked up in Redis: while Redis is down the reads
 * are still answered (by the upstream), and once it is back a repeated read is answered from Redis
 * again, without reaching the upstream.
 */
import { Anvil } from '../support/anvil';
import { rpcResult } from '../support/fault-bench';
import { FaultyUpstream } from '../support/faulty-upstream';
import { RedisServer } from '../support/redis-server';
import { startUpstreamGatewayProcess, upstreamToml, type UpstreamGatewayProcess } from '../support/upstream';

jest.setTimeout(60_000);

const METHOD = 'eth_getBlockByNumber';

let redis: RedisServer;
let anvil: Anvil;
let proxy: FaultyUpstream;
let gw: UpstreamGatewayProcess;

beforeAll(async () => {
  [redis, anvil] = await Promise.all([RedisServer.start(), Anvil.start({ chainId: 9001, noMining: true })]);
  await anvil.rpc('anvil_mine', ['0x5']);
  proxy = await FaultyUpstream.start(anvil.url);
  gw = await startUpstreamGatewayProcess(upstreamToml([], { health_check_interval: '200ms' }, [{ name: 'anvil', url: proxy.url }]), {
    'cache.redis_url': redis.url,
    'cache.max_bytes': '0',
  });
});

afterAll(async () => {
  await gw?.close();
  await proxy?.close();
  await anvil?.stop();
  await redis?.stop();
});

/** Block `n` through the gateway, checked against anvil's own; whether the upstream was asked for it. */
async function readBlock(n: number): Promise<{ upstreamAsked: boolean }> {
  const params = [`0x${n.toString(16)}`, false];
  const before = proxy.requests(METHOD);
  expect(await rpcResult(gw.evmUrl, METHOD, params)).toEqual(await anvil.rpc(METHOD, params));
  // The read of anvil's own answer above went straight to anvil, not through the proxy.
  return { upstreamAsked: proxy.requests(METHOD) > before };
}

/** Reads block `n` until an answer comes from Redis (its write, after the first read, is not awaited). */
async function untilFromRedis(n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await readBlock(n)).upstreamAsked) {
    if (Date.now() > deadline) throw new Error(`block ${n} never answered from Redis`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('keeps answering reads while Redis is down, and answers from Redis again once it is back', async () => {
  expect((await readBlock(1)).upstreamAsked).toBe(true);
  await untilFromRedis(1);

  const since = gw.logs.length;
  await redis.stop();
  for (const n of [1, 2, 3, 1]) expect(await readBlock(n)).toEqual({ upstreamAsked: true });
  await gw.waitForLog(new RegExp(`^Redis cache at ${redis.url} unavailable \\(`), 10_000, since);

  await redis.restart();
  await gw.waitForLog(new RegExp(`^Redis cache at ${redis.url} is back$`), 10_000, since);
  // Redis came back empty: the next read of a block goes upstream and is written, then served from Redis.
  await readBlock(2);
  await untilFromRedis(2);
});
