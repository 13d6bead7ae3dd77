/**
 * `[access] redis_url` on a real Redis (127.0.0.1:6379): two replicas share one rate budget, and API
 * keys are read from Redis (by their SHA-256), added and revoked without a restart.
 */
import { Redis } from 'ioredis';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';

jest.setTimeout(60_000);

const REDIS_URL = 'redis://127.0.0.1:6379';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const rpc = (method: string, id = 1) => ({ jsonrpc: '2.0', id, method, params: [] });

async function postWith(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
}

async function replica(prefix: string, gatewayToml: string, flags: Record<string, string> = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'rpcgw-redis-access-'));
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'gateway.toml'), gatewayToml);
  const gw = await startTestGateway(
    {
      'json-rpc.enable': 'true',
      'json-rpc.address': '127.0.0.1:0',
      'json-rpc.ws-address': '127.0.0.1:0',
      'devnet.block_time': '1h',
      'devnet.ephemeral': 'true',
      'access.redis_url': REDIS_URL,
      'access.redis_key_prefix': prefix,
      ...flags,
    },
    dir,
  );
  return {
    ...gw,
    async close() {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function until(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 50));
  }
}

let redis: Redis;
beforeAll(() => {
  redis = new Redis(REDIS_URL);
});
const prefix = `rpcgw-test:${randomUUID()}:`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('two replicas, one budget', () => {
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    const rules = '[[access.rate]]\nname = "shared"\nmethods = ["eth_chainId"]\nlimit = 4\nwindow = "30s"\n';
    [a, b] = await Promise.all([replica(prefix, rules), replica(prefix, rules)]);
    // Budgets go to Redis once each replica's client is connected.
    await until(async () => (await redis.keys(`${prefix}*`)).length === 0 && (await postWith(a.evmHttpUrl!, rpc('net_version'))).status === 200);
    await new Promise((r) => setTimeout(r, 300));
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('calls on either replica count against the one budget in Redis', async () => {
    const statuses: number[] = [];
    for (const gw of [a, b, a, b, a, b]) statuses.push((await postWith(gw.evmHttpUrl!, rpc('eth_chainId'))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const stored = await redis.keys(`${prefix}rate:*`);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toContain('shared');
    // The budget's key names the rule and the client address, never an API key.
    expect(stored[0]).toMatch(/ip:/);
  });
});

describe('API keys in Redis', () => {
  let gw: TestGateway;
  const KEY = `redis-key-${randomUUID()}`;

  beforeAll(async () => {
    await redis.hset(`${prefix}key:${sha256(KEY)}`, { name: 'from-redis', namespaces: 'debug' });
    gw = await replica(prefix, '', { 'access.keys_redis': 'true', 'access.keys_cache_ttl': '200ms', 'json-rpc.api': 'eth,net,web3' });
  });
  afterAll(() => gw?.close());

  it('a key stored by its SHA-256 is served with its grants, over HTTP and WebSocket', async () => {
    await until(async () => (await postWith(gw.evmHttpUrl!, rpc('eth_chainId'), { 'x-api-key': KEY })).status === 200);
    // A debug tracer: the runtime methods are closed to everyone without enable-profiling.
    const trace = { jsonrpc: '2.0', id: 1, method: 'debug_traceBlockByNumber', params: ['0x1', {}] };
    expect((await postWith(gw.evmHttpUrl!, trace, { Authorization: `Bearer ${KEY}` })).json.result).toBeDefined();
    const ws = await PipelineSocket.connect(`${gw.evmWsUrl}/key/${KEY}`);
    ws.pipeline([rpc('eth_chainId')]);
    expect((await ws.collect(1))[0].result).toMatch(/^0x/);
    await ws.close();
    expect((await postWith(gw.evmHttpUrl!, rpc('eth_chainId'))).status).toBe(401);
    expect((await postWith(gw.evmHttpUrl!, rpc('eth_chainId'), { 'x-api-key': 'someone-else' })).status).toBe(401);
  });

  it('a key added or revoked in Redis takes effect after keys_cache_ttl, without a restart', async () => {
    const added = `added-${randomUUID()}`;
    expect((await postWith(gw.url, { jsonrpc: '2.0', id: 1, method: 'health', params: {} }, { 'x-api-key': added })).status).toBe(401);
    await redis.hset(`${prefix}key:${sha256(added)}`, { name: 'added' });
    await until(async () => (await postWith(gw.url, { jsonrpc: '2.0', id: 1, method: 'health', params: {} }, { 'x-api-key': added })).status === 200);
    await redis.del(`${prefix}key:${sha256(added)}`);
    await until(async () => (await postWith(gw.url, { jsonrpc: '2.0', id: 1, method: 'health', params: {} }, { 'x-api-key': added })).status === 401);
  });
});
