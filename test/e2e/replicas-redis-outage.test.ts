/**
 * A Redis outage under shared filters and per-IP caps: a replica (`rpc-gateway start` as a process of
 * its own, upstream mode over an embedded devnet) whose `[filters]` and `[access]` Redis is a
 * redis-server of the test's own, killed and started again. While it is down, filter calls answer a
 * clear error (within the store's command timeout), caps count on the replica alone, other calls are served, and each side warns once;
 * once Redis is back, both recover by themselves.
 */
import { evmRpcFlags } from '../support/backends';
import { callOnNewConnection } from '../support/event-watchers';
import { startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';
import { RedisServer } from '../support/redis-server';
import { startUpstreamGatewayProcess, upstreamToml, type UpstreamGatewayProcess } from '../support/upstream';

jest.setTimeout(180_000);

const FILTERS_DOWN = /^filters: Redis cannot be reached/;
const CAPS_DOWN = /^per-IP caps: Redis cannot be reached/;

describe('shared filters and caps through a Redis outage', () => {
  let redis: RedisServer;
  let devnet: TestGateway;
  let replica: UpstreamGatewayProcess;
  const sockets: PipelineSocket[] = [];

  beforeAll(async () => {
    redis = await RedisServer.start();
    devnet = await startTestGateway({ ...evmRpcFlags('eth,net,web3'), 'devnet.block_time': '300ms' });
    await waitForHeight(devnet.url, 1);
    const toml = upstreamToml([{ name: 'devnet', url: devnet.url }], { health_check_interval: '200ms' }, [{ name: 'devnet', url: devnet.evmHttpUrl! }]);
    replica = await startUpstreamGatewayProcess(toml, {
      'filters.redis_url': redis.url,
      'access.redis_url': redis.url,
      'limits.max_ws_connections_per_ip': '2',
    });
  });

  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
    await replica?.close();
    await devnet?.close();
    await redis?.stop();
  });

  const call = (method: string, params: unknown[] = []) => callOnNewConnection(replica.evmUrl, method, params);
  const count = (re: RegExp) => replica.logs.filter((m) => re.test(m)).length;
  const openWs = async (): Promise<boolean> => {
    const opened = await PipelineSocket.open(replica.evmWsUrl);
    if (opened.ok) sockets.push(opened.ws);
    return opened.ok;
  };

  it('answers filter calls with a clear error and counts caps locally while Redis is down, warning once each', async () => {
    const filter = (await call('eth_newBlockFilter')).result;
    expect(typeof filter).toBe('string');
    expect(Array.isArray((await call('eth_getFilterChanges', [filter])).result)).toBe(true);

    await redis.stop();
    await replica.waitForLog(CAPS_DOWN);
    const unavailable = { code: -32000, message: 'filters unavailable: their store cannot be reached' };
    for (let i = 0; i < 3; i++) {
      expect((await call('eth_newFilter', [{}])).error).toEqual(unavailable);
      expect((await call('eth_getFilterChanges', [filter])).error).toEqual(unavailable);
    }
    expect((await call('eth_uninstallFilter', [filter])).error).toEqual(unavailable);
    // Everything else is served.
    expect((await call('eth_blockNumber')).result).toMatch(/^0x[0-9a-f]+$/);
    // The WebSocket cap holds on this replica alone.
    expect([await openWs(), await openWs(), await openWs()]).toEqual([true, true, false]);
    expect([count(FILTERS_DOWN), count(CAPS_DOWN)]).toEqual([1, 1]);
  });

  it('recovers by itself once Redis is back: filters work again and the places given meanwhile count', async () => {
    await redis.restart();
    await replica.waitForLog(/^per-IP caps: Redis answers again$/, 30_000, 0);
    let made: string | undefined;
    while (made === undefined) {
      const answer = await call('eth_newBlockFilter');
      if (typeof answer.result === 'string') made = answer.result;
      else await new Promise((r) => setTimeout(r, 200));
    }
    await replica.waitForLog(/^filters: Redis answers again$/, 30_000, 0);
    expect(Array.isArray((await call('eth_getFilterChanges', [made])).result)).toBe(true);
    expect((await call('eth_uninstallFilter', [made])).result).toBe(true);
    expect(await openWs()).toBe(false);
    await sockets.shift()!.close();
    let reopened = false;
    while (!reopened) reopened = await openWs();
    expect([count(FILTERS_DOWN), count(CAPS_DOWN)]).toEqual([1, 1]);
  });
});
