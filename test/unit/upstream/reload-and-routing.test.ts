/**
 * The pool's reload as a handover, its chain identity, and routing that learns from hedges: over small
 * in-process EVM JSON-RPC servers (real HTTP) whose chain id and answer delay a test sets.
 */
import { Logger } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { EVM_PROTOCOL } from '../../../src/backends/upstream/evm-protocol';
import { HealthChecker } from '../../../src/backends/upstream/health-checker';
import { LatencyWindow } from '../../../src/backends/upstream/latency-window';
import type { Probe } from '../../../src/backends/upstream/pool-protocol';
import { candidates } from '../../../src/backends/upstream/router';
import { Upstream } from '../../../src/backends/upstream/upstream';
import { UpstreamPool, type PoolRequest } from '../../../src/backends/upstream/upstream-pool';
import { UPSTREAM_DEFAULTS, type UpstreamSettings } from '../../../src/config/upstream-config';
import { declareFamilies } from '../../../src/metrics/metric-families';
import { UpstreamMetrics } from '../../../src/metrics/upstream-metrics';
import { Registry } from 'prom-client';
import { Exposition } from '../metrics/exposition';

/** The upstream families of a registry watching `pool`, scraped on demand. */
function watched(pool: UpstreamPool): () => Promise<Exposition> {
  const registry = new Registry();
  pool.watchedBy(new UpstreamMetrics(declareFamilies(registry, 'rpcgw_')), 'evm');
  return async () => new Exposition(await registry.metrics());
}

interface FakeNode {
  readonly url: string;
  chainId: number;
  /** ms before each answer to a non-health call. */
  delay: number;
  /** Non-health calls are answered go-ethereum's error for a block it does not have. */
  missing: boolean;
  /** Non-health calls received. */
  reads: number;
  close(): Promise<void>;
}

const HEALTH = new Set(['eth_blockNumber', 'eth_syncing', 'eth_chainId']);

async function fakeNode(chainId: number): Promise<FakeNode> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id, method } = JSON.parse(body);
      const answer = () => {
        const result = method === 'eth_blockNumber' ? '0x10' : method === 'eth_syncing' ? false : method === 'eth_chainId' ? `0x${node.chainId.toString(16)}` : { chain: node.chainId };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
      };
      if (HEALTH.has(method) && method !== 'eth_chainId') return answer();
      node.reads += HEALTH.has(method) ? 0 : 1;
      if (node.missing && !HEALTH.has(method)) return res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'header not found' } }));
      if (node.delay > 0 && !HEALTH.has(method)) setTimeout(answer, node.delay);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const node: FakeNode = {
    url: `http://127.0.0.1:${port}`,
    chainId,
    delay: 0,
    missing: false,
    reads: 0,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return node;
}

const settings = (over: Partial<UpstreamSettings> = {}): UpstreamSettings => ({ ...UPSTREAM_DEFAULTS, health_check_interval: 100, retry_backoff: 1, ...over });
const chainIdRead: PoolRequest = { method: 'eth_chainId', params: [], needs: {}, idempotent: true, cache: { kind: 'immutable' } };
const uncached = (n: number): PoolRequest => ({ method: 'eth_getThing', params: [n], needs: {}, idempotent: true, cache: { kind: 'never' } });

beforeAll(() => Logger.overrideLogger(false));

describe('UpstreamPool reload', () => {
  const nodes: FakeNode[] = [];
  const pools: UpstreamPool[] = [];
  const node = async (chainId: number) => {
    const n = await fakeNode(chainId);
    nodes.push(n);
    return n;
  };
  const pool = async (entries: { name: string; url: string }[], over: Partial<UpstreamSettings> = {}) => {
    const p = new UpstreamPool(
      entries.map((e) => ({ ...e, weight: 1 })),
      settings(over),
      { maxBytes: 1 << 20 },
      EVM_PROTOCOL,
      'EVM',
    );
    pools.push(p);
    await p.start();
    return p;
  };

  afterEach(async () => {
    for (const p of pools.splice(0)) p.stop();
    await Promise.all(nodes.splice(0).map((n) => n.close()));
  });

  it('switches in a checked list: a read right after the reload is served by the new upstream', async () => {
    const a = await node(7);
    const b = await node(7);
    const p = await pool([{ name: 'a', url: a.url }]);
    await p.reload([{ name: 'b', url: b.url, weight: 1 }]);
    expect(p.upstreams.map((u) => [u.name, u.healthy, u.downReason])).toEqual([['b', true, '']]);
    await p.request(uncached(1));
    expect([a.reads, b.reads]).toEqual([0, 1]);
  });

  it('keeps serving from the old list while none of the new one is healthy, and switches once one is', async () => {
    const a = await node(7);
    const p = await pool([{ name: 'a', url: a.url }]);
    const reloaded = p.reload([{ name: 'dead', url: 'http://127.0.0.1:1', weight: 1 }]);
    await new Promise((r) => setTimeout(r, 150));
    expect(p.upstreams.map((u) => u.name)).toEqual(['a']);
    expect(await p.request(uncached(1))).toEqual({ chain: 7 });
    // A newer reload supersedes the waiting one.
    const b = await node(7);
    await p.reload([{ name: 'b', url: b.url, weight: 1 }]);
    await reloaded;
    expect(p.upstreams.map((u) => u.name)).toEqual(['b']);
  });

  it('lets a read in flight on a removed upstream finish there', async () => {
    const a = await node(7);
    const b = await node(7);
    const p = await pool([{ name: 'a', url: a.url }], { hedge_quantile: 0 });
    a.delay = 300;
    const pending = p.request(uncached(1));
    await new Promise((r) => setTimeout(r, 50));
    await p.reload([{ name: 'b', url: b.url, weight: 1 }]);
    expect(await pending).toEqual({ chain: 7 });
    expect([a.reads, b.reads]).toEqual([1, 0]);
  });

  it('after a reload to another chain serves nothing cached for the old one, and counts the change', async () => {
    const a = await node(7);
    const b = await node(8);
    const p = await pool([{ name: 'a', url: a.url }]);
    expect(await p.request(chainIdRead)).toBe('0x7');
    expect(p.chain).toBe('7');
    const metrics = watched(p);
    await p.reload([{ name: 'b', url: b.url, weight: 1 }]);
    expect(await p.request(chainIdRead)).toBe('0x8');
    expect([p.chain, p.stats().chain_changes]).toEqual(['8', 1]);
    expect((await metrics()).value('rpcgw_upstream_chain_changes_total', { interface: 'evm' })).toBe(1);
  });

  it('quarantines an upstream of another chain (a tie keeps the pool on its chain), and never caches its answers', async () => {
    const a = await node(7);
    const b = await node(8);
    const p = await pool([{ name: 'a', url: a.url }]);
    await p.reload([
      { name: 'a', url: a.url, weight: 1 },
      { name: 'b', url: b.url, weight: 1 },
    ]);
    expect(p.upstreams.map((u) => [u.name, u.healthy, u.downReason])).toEqual([
      ['a', true, ''],
      ['b', false, 'wrong-chain'],
    ]);
    expect(p.upstreams[1].lastError).toBe('chain 8, the pool serves 7');
    const metrics = await watched(p)();
    expect([metrics.value('rpcgw_upstream_wrong_chain', { interface: 'evm', upstream: 'a' }), metrics.value('rpcgw_upstream_wrong_chain', { interface: 'evm', upstream: 'b' })]).toEqual([0, 1]);
    for (let i = 0; i < 5; i++) expect(await p.request(uncached(i))).toEqual({ chain: 7 });
    // The node behind a's URL moves to chain 8: it is quarantined, the pool does not follow it.
    a.chainId = 8;
    await p.checkHealth();
    expect([p.chain, p.serving, p.upstreams[0].downReason]).toEqual(['7', false, 'wrong-chain']);
  });

  it('quarantines an upstream at its first answer that states another chain, and neither serves nor caches it', async () => {
    const a = await node(7);
    // No health round comes between: only the answer tells.
    const p = await pool([{ name: 'a', url: a.url }], { health_check_interval: 60_000 });
    a.chainId = 8;
    await expect(p.request(chainIdRead)).rejects.toThrow('upstream request failed: a answered for chain 8, the pool serves 7');
    expect([p.upstreams[0].healthy, p.upstreams[0].downReason, p.upstreams[0].lastError]).toEqual([false, 'wrong-chain', 'chain 8, the pool serves 7']);
    await expect(p.request(uncached(1))).rejects.toThrow('no healthy EVM upstream available (a: wrong-chain (chain 8, the pool serves 7))');
    a.chainId = 7;
    await p.checkHealth();
    expect(await p.request(chainIdRead)).toBe('0x7');
  });
});

describe('routing that learns from hedges', () => {
  const up = (name: string) => {
    const u = new Upstream({ name, url: 'http://127.0.0.1:1', weight: 1 }, UPSTREAM_DEFAULTS);
    u.healthy = true;
    u.downReason = '';
    return u;
  };

  it('does not prefer an upstream with no latency over a measured one, but asks it once on the tie', () => {
    const measured = up('measured');
    const unknown = up('unknown');
    measured.latency.add(5);
    measured.counters.requests = 3;
    // Asked once, as the one with fewer requests on a tie of expected waits…
    expect(candidates([measured, unknown], {}).map((u) => u.name)).toEqual(['unknown', 'measured']);
    // …but not preferred for being unmeasured (it does not count as 0 ms).
    unknown.counters.requests = 3;
    expect(candidates([measured, unknown], {}).map((u) => u.name)).toEqual(['measured', 'unknown']);
    measured.counters.requests = 4;
    measured.latency.add(1_000);
    measured.latency.add(1_000);
    unknown.latency.add(10);
    expect(candidates([measured, unknown], {})[0].name).toBe('unknown');
    // A slow measured one: the unknown is taken to be as fast as the fastest known, so it is tried.
    const slow = up('slow');
    slow.latency.add(800);
    slow.counters.requests = 1;
    expect(candidates([slow, up('new')], {})[0].name).toBe('new');
  });

  it('prefers a busy fast upstream to an idle one many times slower; never a retired one', () => {
    const fast = up('fast');
    const slow = up('slow');
    fast.latency.add(2);
    slow.latency.add(800);
    fast.inFlight = 10;
    expect(candidates([slow, fast], {})[0].name).toBe('fast');
    fast.retired = true;
    expect(candidates([slow, fast], {}).map((u) => u.name)).toEqual(['slow']);
  });

  it('takes a lower bound as a sample only when it tells something', () => {
    const w = new LatencyWindow();
    w.addLowerBound(100);
    expect(w.quantile(0.5)).toBe(100);
    w.addLowerBound(10);
    expect(w.size).toBe(1);
    w.addLowerBound(300);
    expect(w.size).toBe(2);
  });

  it('a slow upstream hedged out falls behind the fast one after one read', async () => {
    const slow = await fakeNode(7);
    const fast = await fakeNode(7);
    slow.delay = 800;
    // hedge_max_delay 100 ms: the first read to the slow one (nothing measured yet) is rescued after it.
    const p = new UpstreamPool(
      [
        { name: 'slow', url: slow.url, weight: 1 },
        { name: 'fast', url: fast.url, weight: 1 },
      ],
      settings({ hedge_max_delay: 100 }),
      { maxBytes: 0 },
      EVM_PROTOCOL,
      'EVM',
    );
    try {
      await p.start();
      const times: number[] = [];
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        await p.request(uncached(i));
        times.push(performance.now() - t0);
      }
      const [s, f] = p.upstreams;
      // Only the first read went to the slow one first (list order on a tie of unknowns).
      expect(s.counters.requests - s.counters.hedges).toBeLessThanOrEqual(1);
      expect(s.latency.quantile(0.5)).toBeGreaterThanOrEqual(100);
      expect(f.latency.size).toBeGreaterThanOrEqual(9);
      // Every read after the first was far quicker than the hedge delay (500 ms of slack for a loaded host).
      expect(Math.max(...times.slice(1))).toBeLessThan(600);
    } finally {
      p.stop();
      await slow.close();
      await fast.close();
    }
  });
});

describe('retries after an answer that the data is missing', () => {
  // Every node is at height 0x10 (eth_blockNumber) and answers every read "header not found".
  it.each<[string, number, bigint | undefined, number[], number]>([
    ['a height the pool has reached: asked again, the same node too (it may be a moment behind its announcement)', 1, 5n, [3], 2],
    ['a height past every head: the node’s own answer at once, no retry', 2, 0x20n, [1, 0], 0],
    ['data without a height: each node asked once', 2, undefined, [1, 1], 1],
  ])('%s', async (_title, count, height, reads, retries) => {
    const nodes = await Promise.all(Array.from({ length: count }, () => fakeNode(7)));
    for (const n of nodes) n.missing = true;
    const p = new UpstreamPool(
      nodes.map((n, i) => ({ name: `n${i}`, url: n.url, weight: 1 })),
      settings({ retries: 2, hedge_quantile: 0 }),
      { maxBytes: 0 },
      EVM_PROTOCOL,
      'EVM',
    );
    const scrape = watched(p);
    try {
      await p.start();
      const read: PoolRequest = { method: 'eth_getThing', params: [], needs: { height }, idempotent: true, cache: { kind: 'never' } };
      await expect(p.request(read)).rejects.toThrow('header not found');
      expect(nodes.map((n) => n.reads)).toEqual(reads);
      const counted = (await scrape()).series('rpcgw_upstream_retries_total').reduce((n, row) => n + Number(row.value), 0);
      expect(counted).toBe(retries);
    } finally {
      p.stop();
      await Promise.all(nodes.map((n) => n.close()));
    }
  });
});

describe('HealthChecker chain identity', () => {
  const probe = (network: string): Probe => ({ ok: true, network, latest: 5n, earliest: 1n, catchingUp: false });

  it('adopts the first majority, then keeps it: a later majority of another chain is quarantined', async () => {
    const [a, b] = ['a', 'b'].map((name) => new Upstream({ name, url: 'http://127.0.0.1:1', weight: 1 }, UPSTREAM_DEFAULTS));
    let answers: Record<string, string> = { a: 'x', b: 'x' };
    const checker = new HealthChecker(() => [a, b], 1000, 1000, 5n, 1, () => {}, () => {}, async (u) => probe(answers[u.name]));
    await checker.checkNow();
    expect([a.healthy, b.healthy]).toEqual([true, true]);
    answers = { a: 'y', b: 'y' };
    await checker.checkNow();
    expect([a.downReason, b.downReason]).toEqual(['wrong-chain', 'wrong-chain']);
    a.close();
    b.close();
  });
});
