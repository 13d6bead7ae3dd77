/**
 * `[limits] max_ws_connections_per_ip` held for the whole deployment: two gateway replicas sharing the
 * `[access]` Redis (127.0.0.1:6379) count one address's WebSockets together. A third WebSocket to either
 * is refused with the cap's error; closing one frees a place on the other; handshakes at once on both
 * leave exactly the cap open; a replica that dies without letting go returns its places once their
 * leases expire.
 */
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { AccessService } from '../../src/access/access.service';
import { IP_CAP_LEASE } from '../../src/access/shared-ip-caps';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { PipelineSocket, type Opened } from '../support/raw-ws';

jest.setTimeout(60_000);

const REDIS_URL = 'redis://127.0.0.1:6379';
const REFUSAL = { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request', data: 'max_ws_connections_per_ip 2 reached' } };

async function until(done: () => Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const started = Date.now();
  while (!(await done())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

function refusedAtCap(opened: Opened): boolean {
  if (opened.ok) return false;
  expect([opened.status, JSON.parse(opened.body)]).toEqual([429, REFUSAL]);
  return true;
}

/** The replica's `[access]` Redis connection (private to its AccessService). */
function accessRedis(gw: TestGateway): Redis {
  return (gw.app.get(AccessService) as unknown as { redis: Redis }).redis;
}

describe('max_ws_connections_per_ip across two replicas', () => {
  const prefix = `rpcgw-test:${randomUUID()}:`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  let a: TestGateway;
  let b: TestGateway;
  const open: PipelineSocket[] = [];
  const connect = async (gw: TestGateway): Promise<Opened> => {
    const opened = await PipelineSocket.open(gw.wsUrl);
    if (opened.ok) open.push(opened.ws);
    return opened;
  };

  beforeAll(async () => {
    IP_CAP_LEASE.ms = 1_500;
    const replica = () =>
      startTestGateway({ 'devnet.block_time': '1h', 'devnet.ephemeral': 'true', 'access.redis_url': REDIS_URL, 'access.redis_key_prefix': prefix, 'limits.max_ws_connections_per_ip': '2' });
    [a, b] = await Promise.all([replica(), replica()]);
    await until(async () => [a, b].every((gw) => accessRedis(gw).status === 'ready'));
  });

  afterAll(async () => {
    await Promise.all(open.map((ws) => ws.close().catch(() => undefined)));
    await Promise.all([a, b].map((gw) => gw?.close()));
    IP_CAP_LEASE.ms = 30_000;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('refuses a third WebSocket on either replica, and frees a place on one when the other closes one', async () => {
    expect((await connect(a)).ok).toBe(true);
    expect((await connect(b)).ok).toBe(true);
    expect(refusedAtCap(await connect(a))).toBe(true);
    expect(refusedAtCap(await connect(b))).toBe(true);
    // One on A closes: B may open one.
    await open.shift()!.close();
    await until(async () => (await connect(b)).ok);
    expect(refusedAtCap(await connect(a))).toBe(true);
    await Promise.all(open.splice(0).map((ws) => ws.close()));
  });

  it('leaves exactly the cap open when handshakes come at once to both replicas', async () => {
    await until(async () => (await redis.keys(`${prefix}caps:*`)).length === 0);
    const opened = await Promise.all([a, b, a, b, a, b].map((gw) => connect(gw)));
    expect(opened.filter((o) => !o.ok).every(refusedAtCap)).toBe(true);
    // A place another replica took in the same instant is revoked: its socket closes.
    await new Promise((r) => setTimeout(r, 500));
    const still = open.filter((ws) => ws.closeCode === undefined);
    expect(still).toHaveLength(2);
    await Promise.all(open.splice(0).map((ws) => ws.close().catch(() => undefined)));
  });

  it("returns a dead replica's places after their lease", async () => {
    await until(async () => (await redis.keys(`${prefix}caps:*`)).length === 0);
    expect((await connect(b)).ok).toBe(true);
    expect((await connect(b)).ok).toBe(true);
    expect(refusedAtCap(await connect(a))).toBe(true);
    // B dies: it can no longer reach Redis to let go of its places, nor renew them.
    accessRedis(b).disconnect();
    await b.close();
    open.splice(0);
    expect(refusedAtCap(await connect(a))).toBe(true);
    const waited = await until(async () => (await connect(a)).ok);
    expect(waited).toBeLessThan(IP_CAP_LEASE.ms + 1_500);
  });
});
