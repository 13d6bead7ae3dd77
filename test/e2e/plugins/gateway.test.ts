/**
 * The shipped `gateway` plugin (plugins/gateway), loaded by default: the operator's `gateway_*` methods
 * over the EVM RPC's HTTP (single and batch) and WebSocket, on the embedded devnet and in upstream mode
 * in front of one (pools, cache, redacted config), and refused unless the operator opens them with
 * `[rpc] unsafe = true` and `gateway` in `[json-rpc] api`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { PLUGIN_API_VERSION } from '../../../src/plugins/api';
import { evmRpcFlags } from '../../support/backends';
import { call, post, startTestGateway, waitForHeight, type TestGateway } from '../../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../../support/upstream';
import { WsClient } from '../../support/ws-client';

jest.setTimeout(60_000);

const VERSION: string = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).version;
const METHODS = ['gateway_upstreams', 'gateway_cache', 'gateway_version', 'gateway_config', 'gateway_plugins', 'gateway_queue'];
/** The shipped plugins, loaded by path. */
const PLUGINS = { 'plugins.load': 'plugins/gateway,plugins/cosmos', 'plugins.node_api': 'cosmos' };
const OPEN = { ...evmRpcFlags('eth,net,web3,gateway'), 'rpc.unsafe': 'true', ...PLUGINS };

/** One EVM JSON-RPC call over HTTP; the whole answer. */
async function evm(gw: TestGateway, method: string, params: unknown[] = [], id: unknown = 1): Promise<any> {
  const res = await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id, method, params });
  expect(res.status).toBe(200);
  return res.json;
}

async function evmResult(gw: TestGateway, method: string): Promise<any> {
  const answer = await evm(gw, method);
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

const refusal = (method: string, id: unknown = 1) => ({ jsonrpc: '2.0', id, error: { code: -32601, message: `the method ${method} does not exist/is not available` } });

describe('on the embedded devnet, opened by the operator', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway(OPEN);
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('gateway_version: the version, the backend and the plugin API version', async () => {
    expect(await evm(gw, 'gateway_version')).toEqual({ jsonrpc: '2.0', id: 1, result: { version: VERSION, backend: 'embedded', plugin_api_version: PLUGIN_API_VERSION } });
  });

  it('gateway_upstreams: no pools on the devnet', async () => {
    expect(await evmResult(gw, 'gateway_upstreams')).toEqual([]);
  });

  it("gateway_cache: the devnet's cache of each interface; an old block is served from it, a latest read moves with the chain", async () => {
    await waitForHeight(gw.url, 2);
    const memoryOnly = { hits: expect.any(Number), misses: expect.any(Number), evictions: 0, bytes: expect.any(Number), entries: expect.any(Number), max_bytes: 67108864 };
    const before: any[] = await evmResult(gw, 'gateway_cache');
    expect(before).toEqual([
      { pool: 'node', ...memoryOnly, tiers: { memory: { hits: expect.any(Number), misses: expect.any(Number) }, redis: null } },
      { pool: 'evm', ...memoryOnly, tiers: { memory: { hits: expect.any(Number), misses: expect.any(Number) }, redis: null } },
    ]);
    const [node, evmCache] = before;

    const block = (await evm(gw, 'eth_getBlockByNumber', ['0x1', false])).result;
    expect((await evm(gw, 'eth_getBlockByNumber', ['0x1', false])).result).toEqual(block);
    expect(await call(gw.url, 'block', { height: '1' })).toEqual(await call(gw.url, 'block', { height: '1' }));
    const after: any[] = await evmResult(gw, 'gateway_cache');
    expect(after[1]).toMatchObject({ hits: evmCache.hits + 1, misses: evmCache.misses + 1, entries: evmCache.entries + 1 });
    expect(after[1].bytes).toBeGreaterThan(evmCache.bytes);
    expect(after[0]).toMatchObject({ hits: node.hits + 1, misses: node.misses + 1 });

    const latest = (await evm(gw, 'eth_getBlockByNumber', ['latest', false])).result;
    expect((await evm(gw, 'eth_getBlockByNumber', ['latest', false])).result).toEqual(latest);
    await waitForHeight(gw.url, Number(latest.number) + 1);
    const next = (await evm(gw, 'eth_getBlockByNumber', ['latest', false])).result;
    expect(BigInt(next.number)).toBeGreaterThan(BigInt(latest.number));
    expect(next.hash).not.toBe(latest.hash);
  });

  it('gateway_config: the effective configuration', async () => {
    const config = await evmResult(gw, 'gateway_config');
    expect(config['config.toml'].rpc.unsafe).toBe(true);
    expect(config['app.toml']['json-rpc'].api).toContain('gateway');
    expect(config['gateway.toml'].backend.kind).toBe('embedded');
  });

  it('gateway_plugins: the shipped plugins and what each serves', async () => {
    const plugins: any[] = await evmResult(gw, 'gateway_plugins');
    const gateway = plugins.find((p) => p.name === 'gateway');
    expect(gateway).toMatchObject({ interface: 'evm', namespaces: ['gateway'] });
    expect(gateway.methods).toEqual(METHODS.map((name) => ({ name, unsafe: true, websocket_only: false, served: true })));
    const cosmos = plugins.find((p) => p.name === 'cosmos');
    expect(cosmos).toMatchObject({ interface: 'node', namespaces: ['cosmos'] });
    expect(cosmos.methods.map((m: any) => m.name).sort()).toEqual(['evm_tx_hash', 'tx_by_evm_hash']);
  });

  it('answers a batch of every method, in order', async () => {
    const res = await post(gw.evmHttpUrl!, METHODS.map((method, id) => ({ jsonrpc: '2.0', id, method, params: [] })));
    expect(res.json.map((a: any) => a.id)).toEqual(METHODS.map((_, i) => i));
    expect(res.json.every((a: any) => a.result !== undefined && a.error === undefined)).toBe(true);
    expect(res.json[0].result).toEqual([]);
    expect(res.json[2].result).toEqual({ version: VERSION, backend: 'embedded', plugin_api_version: PLUGIN_API_VERSION });
  });

  it('answers over the WebSocket', async () => {
    const ws = await WsClient.open(gw.evmWsUrl!);
    try {
      for (const [i, method] of METHODS.entries()) ws.send({ jsonrpc: '2.0', id: i + 1, method, params: [] });
      const answers = await Promise.all(METHODS.map((_, i) => ws.next((m) => m.id === i + 1)));
      expect(answers.every((a) => a.error === undefined)).toBe(true);
      expect(answers[2].result).toEqual({ version: VERSION, backend: 'embedded', plugin_api_version: PLUGIN_API_VERSION });
      expect(answers[1].result.map((c: any) => c.pool)).toEqual(['node', 'evm']);
    } finally {
      await ws.close();
    }
  });
});

describe('closed unless the operator opens it', () => {
  it('refuses every method when gateway is not in [json-rpc] api, even with unsafe on', async () => {
    const gw = await startTestGateway({ ...evmRpcFlags('eth,net,web3'), 'rpc.unsafe': 'true', ...PLUGINS });
    try {
      for (const method of METHODS) expect(await evm(gw, method)).toEqual(refusal(method));
      const batch = await post(gw.evmHttpUrl!, [
        { jsonrpc: '2.0', id: 1, method: 'gateway_version', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'web3_clientVersion', params: [] },
      ]);
      expect(batch.json[0]).toEqual(refusal('gateway_version'));
      expect(typeof batch.json[1].result).toBe('string');
      const ws = await WsClient.open(gw.evmWsUrl!);
      try {
        ws.send({ jsonrpc: '2.0', id: 7, method: 'gateway_config', params: [] });
        expect(await ws.next((m) => m.id === 7)).toEqual(refusal('gateway_config', 7));
      } finally {
        await ws.close();
      }
    } finally {
      await gw.close();
    }
  });

  it('refuses every method when gateway is listed but [rpc] unsafe is off', async () => {
    const gw = await startTestGateway({ ...evmRpcFlags('eth,net,web3,gateway'), ...PLUGINS });
    try {
      for (const method of METHODS) expect(await evm(gw, method)).toEqual(refusal(method));
      const batch = await post(gw.evmHttpUrl!, [
        { jsonrpc: '2.0', id: 1, method: 'gateway_config', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
      ]);
      expect(batch.json).toEqual([refusal('gateway_config'), { jsonrpc: '2.0', id: 2, result: '0x2328' }]);
      const ws = await WsClient.open(gw.evmWsUrl!);
      try {
        ws.send({ jsonrpc: '2.0', id: 'u', method: 'gateway_upstreams', params: [] });
        expect(await ws.next((m) => m.id === 'u')).toEqual(refusal('gateway_upstreams', 'u'));
      } finally {
        await ws.close();
      }
    } finally {
      await gw.close();
    }
  });
});

describe('in upstream mode in front of a devnet', () => {
  const REDIS_PASSWORD = 'hunter2-redis-password';
  const UPSTREAM_KEY = 'k3y-in-the-path-0123456789abcdef';
  const prefix = `rpcgw-test-gateway-plugin-${process.pid}-${Date.now()}:`;
  let devnet: TestGateway;
  let gw: UpstreamGateway;

  beforeAll(async () => {
    devnet = await startTestGateway({ ...evmRpcFlags('eth,net,web3'), ...PLUGINS });
    await waitForHeight(devnet.url, 3);
    gw = await startUpstreamGateway(
      [
        { name: 'devnet', url: devnet.url },
        // A provider-style URL with its API key in the path; the devnet has no such route, so it is down.
        { name: 'keyed', url: `${devnet.url}/v2/${UPSTREAM_KEY}` },
      ],
      {
        evm: [{ name: 'devnet-evm', url: devnet.evmHttpUrl!, ws: devnet.evmWsUrl! }],
        settings: { health_check_interval: '200ms' },
        flags: {
          ...OPEN,
          // The local Redis has no password: ioredis warns and connects, so the tier is up.
          'cache.redis_url': `redis://:${REDIS_PASSWORD}@127.0.0.1:6379`,
          'cache.redis_key_prefix': prefix,
          // A loaded machine may take longer than the default 100 ms to answer: the tier must stay up.
          'cache.redis_timeout': '5s',
        },
      },
    );
  });

  afterAll(async () => {
    await gw?.close();
    await devnet?.close();
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      await redis.quit();
    }
  });

  it('gateway_version names the upstream backend', async () => {
    expect(await evmResult(gw, 'gateway_version')).toEqual({ version: VERSION, backend: 'upstream', plugin_api_version: PLUGIN_API_VERSION });
  });

  it('gateway_upstreams: each pool, its head and its upstreams, URLs redacted', async () => {
    const pools = await evmResult(gw, 'gateway_upstreams');
    expect(pools.map((p: any) => p.pool)).toEqual(['node', 'evm']);
    const [node, evmPool] = pools;
    const port = new URL(devnet.url).port;
    expect(BigInt(node.head)).toBeGreaterThanOrEqual(3n);
    const devnetNode = node.upstreams.find((u: any) => u.name === 'devnet');
    expect(devnetNode).toEqual({
      name: 'devnet',
      url: `http://127.0.0.1:${port}`,
      healthy: true,
      reason: '',
      error: '',
      latest_height: expect.stringMatching(/^[0-9]+$/),
      lag: expect.any(Number),
      breaker: 'closed',
    });
    expect(BigInt(devnetNode.latest_height) + BigInt(devnetNode.lag)).toBe(BigInt(node.head));
    const keyed = node.upstreams.find((u: any) => u.name === 'keyed');
    expect(keyed).toMatchObject({ url: `http://127.0.0.1:${port}`, healthy: false, breaker: expect.any(String) });
    expect(keyed.reason).not.toBe('');
    // Down and never at a height: as far behind as the head.
    expect(keyed.latest_height).toBe('0');
    expect(keyed.lag).toBe(Number(node.head));
    expect(evmPool.upstreams).toEqual([
      expect.objectContaining({ name: 'devnet-evm', url: `http://127.0.0.1:${new URL(devnet.evmHttpUrl!).port}`, healthy: true, reason: '', breaker: 'closed' }),
    ]);
    expect(JSON.stringify(pools)).not.toContain(UPSTREAM_KEY);
  });

  it('gateway_cache: each pool’s cache, in total and per tier', async () => {
    const direct = await call(devnet.url, 'block', { height: '2' });
    expect(await call(gw.url, 'block', { height: '2' })).toEqual(direct);
    expect(await call(gw.url, 'block', { height: '2' })).toEqual(direct);
    const pools = await evmResult(gw, 'gateway_cache');
    expect(pools.map((p: any) => p.pool)).toEqual(['node', 'evm']);
    const node = pools[0];
    expect(node).toEqual({
      pool: 'node',
      hits: expect.any(Number),
      misses: expect.any(Number),
      evictions: expect.any(Number),
      bytes: expect.any(Number),
      entries: expect.any(Number),
      max_bytes: expect.any(Number),
      tiers: {
        memory: { hits: expect.any(Number), misses: expect.any(Number) },
        redis: { hits: expect.any(Number), misses: expect.any(Number), up: true, outages: expect.any(Number), errors: expect.any(Number), writes: expect.any(Number) },
      },
    });
    expect(node.hits).toBeGreaterThanOrEqual(1);
    expect(node.tiers.memory.hits).toBeGreaterThanOrEqual(1);
    expect(node.misses).toBeGreaterThanOrEqual(1);
    expect(node.entries).toBeGreaterThanOrEqual(1);
    expect(node.bytes).toBeGreaterThan(0);
    expect(node.max_bytes).toBeGreaterThan(0);
    expect(pools[1].tiers.redis).not.toBeNull();
  });

  it('gateway_config: the effective config with no secret in it', async () => {
    const config = await evmResult(gw, 'gateway_config');
    const text = JSON.stringify(config);
    expect(text).not.toContain(REDIS_PASSWORD);
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(config['gateway.toml'].backend.kind).toBe('upstream');
    expect(config['gateway.toml'].cache.redis_url).toBe('redis://127.0.0.1:6379');
    expect(text).toContain(`http://127.0.0.1:${new URL(devnet.url).port}`);
  });

  it('answers a batch and the WebSocket in upstream mode too', async () => {
    const res = await post(gw.evmHttpUrl!, [
      { jsonrpc: '2.0', id: 1, method: 'gateway_upstreams', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'gateway_cache', params: [] },
    ]);
    expect(res.json.map((a: any) => a.result.map((p: any) => p.pool))).toEqual([
      ['node', 'evm'],
      ['node', 'evm'],
    ]);
    const ws = await WsClient.open(gw.evmWsUrl!);
    try {
      ws.send({ jsonrpc: '2.0', id: 1, method: 'gateway_upstreams', params: [] });
      const answer = await ws.next((m) => m.id === 1);
      expect(answer.result.map((p: any) => p.pool)).toEqual(['node', 'evm']);
    } finally {
      await ws.close();
    }
  });
});
