import { CircuitBreaker } from '../../../src/backends/upstream/circuit-breaker';
import { eventIdentity, synthesizeBlockEvents } from '../../../src/backends/upstream/block-event-synth';
import { HealthChecker } from '../../../src/backends/upstream/health-checker';
import type { Probe } from '../../../src/backends/upstream/pool-protocol';
import { ResponseCache } from '../../../src/backends/response-cache';
import type { Json } from '../../../src/rpc/json';
import { Upstream } from '../../../src/backends/upstream/upstream';
import { parseUpstreamLists, UPSTREAM_DEFAULTS } from '../../../src/config/upstream-config';

describe('CircuitBreaker', () => {
  it('opens after the failures, half-opens after the open time, closes on a trial success', () => {
    let now = 0;
    const b = new CircuitBreaker(3, 5, 1000, () => now);
    b.failure();
    b.failure();
    expect(b.state).toBe('closed');
    b.failure();
    expect(b.state).toBe('open');
    expect(b.tryAcquire()).toBe(false);
    now = 1000;
    expect(b.state).toBe('half-open');
    expect(b.tryAcquire()).toBe(true);
    expect(b.tryAcquire()).toBe(false);
    b.success();
    expect(b.state).toBe('closed');
    expect(b.opens).toBe(1);
  });

  it('re-opens on a failed trial', () => {
    let now = 0;
    const b = new CircuitBreaker(1, 1, 10, () => now);
    b.failure();
    now = 10;
    expect(b.tryAcquire()).toBe(true);
    b.failure();
    expect(b.state).toBe('open');
  });
});

describe('ResponseCache', () => {
  it('keeps immutable answers, evicts least recently used beyond its bytes, and counts hits and misses', () => {
    const c = new ResponseCache(600);
    c.setImmutable('a', { x: 1 }, 100);
    c.setImmutable('b', { x: 2 }, 100);
    expect(c.get('a', 1n)).toEqual({ x: 1 });
    c.setImmutable('c', { x: 3 }, 100);
    c.setImmutable('d', { x: 4 }, 100);
    expect(c.get('b', 1n)).toBeUndefined();
    expect(c.get('a', 1n)).toEqual({ x: 1 });
    expect(c.bytes).toBeLessThanOrEqual(600);
    expect(c.hits).toBe(2);
    expect(c.misses).toBe(1);
  });

  /** A latest answer is kept from its key's second answer: the first only records the key. */
  const keepLatest = (c: ResponseCache, key: string, value: Json, bytes: number, head: bigint, ttlMs: number) => {
    c.setLatest(key, value, bytes, head, ttlMs);
    c.setLatest(key, value, bytes, head, ttlMs);
  };

  it('drops a latest answer when the head moves or its TTL passes', () => {
    let now = 0;
    const c = new ResponseCache(10_000, () => now);
    keepLatest(c, 's', { h: 5 }, 10, 5n, 1000);
    expect(c.get('s', 5n)).toEqual({ h: 5 });
    expect(c.get('s', 6n)).toBeUndefined();
    keepLatest(c, 's', { h: 6 }, 10, 6n, 1000);
    now = 1000;
    expect(c.get('s', 6n)).toBeUndefined();
  });

  it('keeps a latest answer from its second answer, at once after a new block when the key was read in the block before', () => {
    let now = 0;
    const c = new ResponseCache(1 << 30, () => now);
    c.setLatest('once', { n: 1 }, 10, 5n, 1000);
    expect([c.size, c.get('once', 5n)]).toEqual([0, undefined]);
    c.setLatest('once', { n: 2 }, 10, 5n, 1000);
    expect(c.get('once', 5n)).toEqual({ n: 2 });
    // A new head drops the answer, not the memory of the key.
    expect(c.get('once', 6n)).toBeUndefined();
    c.setLatest('once', { n: 3 }, 10, 6n, 1000);
    expect(c.get('once', 6n)).toEqual({ n: 3 });
    // Remembered for two generations (TTLs), then forgotten.
    now = 1500;
    c.setLatest('fresh', { f: 1 }, 10, 6n, 1000);
    now = 2600;
    c.setLatest('fresh', { f: 2 }, 10, 6n, 1000);
    expect(c.get('fresh', 6n)).toEqual({ f: 2 });
    now = 6000;
    c.setLatest('fresh', { f: 3 }, 10, 6n, 1000);
    expect(c.get('fresh', 6n)).toBeUndefined();
  });

  it('stores none of many keys answered once, however many', () => {
    let now = 0;
    const c = new ResponseCache(1 << 30, () => now);
    for (let i = 0; i < 20_000; i++, now += 0.1) c.setLatest(`eth_getBalance["0x${i.toString(16).padStart(40, '0')}","latest"]`, '0x0', 10, 5n, 1000);
    // A false "seen" of the filter may let a few in.
    expect(c.size).toBeLessThan(100);
  });

  it('drops every latest answer at a new head or when the budget is full, and ignores one read at an older head', () => {
    const c = new ResponseCache(1_000);
    c.setImmutable('block', { n: 1 }, 100);
    for (const k of ['x', 'y']) keepLatest(c, k, { k }, 100, 7n, 1000);
    expect(c.size).toBe(3);
    expect(c.get('x', 8n)).toBeUndefined();
    expect(c.size).toBe(1);
    keepLatest(c, 'late', {}, 100, 7n, 1000);
    expect(c.get('late', 8n)).toBeUndefined();
    for (const k of ['a', 'b', 'c']) keepLatest(c, k, { k }, 100, 8n, 1000);
    expect(c.get('c', 8n)).toEqual({ k: 'c' });
    c.setImmutable('tx', { n: 2 }, 300);
    expect(c.bytes).toBeLessThanOrEqual(1_000);
    expect([c.get('block', 8n), c.get('tx', 8n), c.get('a', 8n), c.get('c', 8n)]).toEqual([{ n: 1 }, { n: 2 }, undefined, undefined]);
    expect(c.evictions).toBe(0);
  });

  it('holds latest answers of new keys for at most two TTLs while the head stays, and keeps each for its whole TTL', () => {
    let now = 0;
    const c = new ResponseCache(1 << 30, () => now);
    // One new key every 10 ms for 10 s at one head, TTL 1 s: about 100 keys live at a time.
    for (let i = 0; i < 1_000; i++, now += 10) {
      keepLatest(c, `k${i}`, { i }, 10, 5n, 1_000);
      if (i >= 99) expect(c.get(`k${i - 99}`, 5n)).toEqual({ i: i - 99 });
      expect(c.size).toBeLessThanOrEqual(200);
    }
    expect(c.get('k0', 5n)).toBeUndefined();
    // A quiet spell longer than two generations leaves nothing behind.
    now += 5_000;
    keepLatest(c, 'late', { late: true }, 10, 5n, 1_000);
    expect([c.size, c.get('late', 5n)]).toEqual([1, { late: true }]);
  });
});

describe('parseUpstreamLists', () => {
  it('reads nodes with defaults', () => {
    const cfg = parseUpstreamLists({
      upstream: { max_height_lag: 3, request_timeout: '2s', node: [{ name: 'a', url: 'http://127.0.0.1:26657/' }] },
    });
    expect(cfg.nodes).toEqual([{ name: 'a', url: 'http://127.0.0.1:26657', weight: 1 }]);
  });

  it.each([
    [{ upstream: { node: [{ name: 'a', url: 'ftp://x' }] } }, 'config/gateway.toml: [[upstream.node]] #1 url = "ftp://x": expected an http:// or https:// URL'],
    [{ upstream: { node: [{ name: 'a', url: 'http://x', weight: 0 }] } }, 'config/gateway.toml: [[upstream.node]] #1 weight = 0: expected an integer from 1 to 1000'],
    [{ upstream: { node: {} } }, 'config/gateway.toml: upstream.node = {}: expected an array of tables [[upstream.node]]'],
    [
      { upstream: { node: [{ name: 'a', url: 'http://x' }, { name: 'a', url: 'http://y' }] } },
      'config/gateway.toml: [[upstream.node]] #2 name = "a": expected a name not used by another [[upstream.node]]',
    ],
  ])('rejects %j in one line', (doc, message) => {
    expect(() => parseUpstreamLists(doc)).toThrow(message);
  });
});

describe('synthesizeBlockEvents', () => {
  it('rebuilds NewBlock, NewBlockHeader, NewBlockEvents and Tx with their event maps', () => {
    const tx = Buffer.from('k=v').toString('base64');
    const events = synthesizeBlockEvents(
      { block_id: { hash: 'AB' }, block: { header: { height: '7' }, data: { txs: [tx] } } },
      {
        height: '7',
        txs_results: [{ code: 0, events: [{ type: 'app', attributes: [{ key: 'key', value: 'k', index: true }] }] }],
        finalize_block_events: null,
        validator_updates: null,
        consensus_param_updates: null,
        app_hash: 'AA==',
      },
    );
    expect(events.map((e) => e.type)).toEqual(['NewBlock', 'NewBlockHeader', 'NewBlockEvents', 'Tx']);
    const txEvent = events[3];
    expect(txEvent.events['app.key']).toEqual(['k']);
    expect(txEvent.events['tx.height']).toEqual(['7']);
    expect(eventIdentity(txEvent)).toBe(`Tx:7:${txEvent.events['tx.hash'][0]}`);
    expect(eventIdentity(events[0])).toBe('NewBlock:7');
  });
});

describe('HealthChecker', () => {
  const answer = (latest: bigint): Probe => ({ ok: true, network: 'chain-1', latest, earliest: 1n, catchingUp: false });
  const silent: Probe = { ok: false, error: 'timeout after 2000 ms' };

  it('keeps a healthy upstream up through fewer missed checks than unhealthy_threshold, then marks it down', async () => {
    const u = new Upstream({ name: 'a', url: 'http://127.0.0.1:1', weight: 1 }, UPSTREAM_DEFAULTS);
    const probes = [answer(5n), silent, answer(6n), silent, silent];
    const transitions: string[] = [];
    const checker = new HealthChecker(() => [u], 1000, 1000, 5n, 2, (t) => transitions.push(`${t.healthy}:${t.reason}`), () => {}, async () => probes.shift()!);
    await checker.checkNow();
    expect(u.healthy).toBe(true);
    await checker.checkNow();
    expect(u.healthy).toBe(true);
    await checker.checkNow();
    await checker.checkNow();
    expect(u.healthy).toBe(true);
    await checker.checkNow();
    expect([u.healthy, u.downReason, u.lastError]).toEqual([false, 'unreachable', 'timeout after 2000 ms']);
    expect(transitions).toEqual(['true:', 'false:unreachable']);
    u.close();
  });

  it('marks an upstream that never answered down at its first check', async () => {
    const u = new Upstream({ name: 'a', url: 'http://127.0.0.1:1', weight: 1 }, UPSTREAM_DEFAULTS);
    const checker = new HealthChecker(() => [u], 1000, 1000, 5n, 3, () => {}, () => {}, async () => silent);
    await checker.checkNow();
    expect([u.healthy, u.downReason]).toEqual([false, 'unreachable']);
    u.close();
  });

  it('believes a head far above every other only when the node serves that block', async () => {
    const [honest, liar] = ['honest', 'liar'].map((name) => new Upstream({ name, url: 'http://127.0.0.1:1', weight: 1 }, UPSTREAM_DEFAULTS));
    let liarHead = 10n;
    const asked: bigint[] = [];
    const checker = new HealthChecker(
      () => [honest, liar],
      1000,
      1000,
      5n,
      2,
      () => {},
      () => {},
      async (u) => answer(u === liar ? liarHead : 10n),
      undefined,
      async (u, height) => (asked.push(height), height <= 10n),
    );
    await checker.checkNow();
    expect([honest.healthy, liar.healthy, asked]).toEqual([true, true, []]);
    liarHead = 1010n;
    await checker.checkNow();
    expect([liar.healthy, liar.downReason, liar.lastError, String(liar.latestHeight)]).toEqual([false, 'bad-height', 'reports height 1010, a block it does not serve', '10']);
    // Not taken for lagging behind the liar.
    expect([honest.healthy, asked]).toEqual([true, [1010n]]);
    liarHead = 11n;
    await checker.checkNow();
    expect([liar.healthy, String(liar.latestHeight)]).toEqual([true, '11']);
    [honest, liar].forEach((u) => u.close());
  });

  it('starts an upstream back from down afresh: latencies forgotten, breaker closed', async () => {
    const u = new Upstream({ name: 'a', url: 'http://127.0.0.1:1', weight: 1 }, { ...UPSTREAM_DEFAULTS, breaker_failures: 1, breaker_window: 1 });
    const probes = [answer(5n), silent, answer(6n)];
    const checker = new HealthChecker(() => [u], 1000, 1000, 5n, 1, () => {}, () => {}, async () => probes.shift()!);
    await checker.checkNow();
    u.latency.addLowerBound(900);
    u.breaker.failure();
    await checker.checkNow();
    expect([u.healthy, u.breaker.state, u.latency.size]).toEqual([false, 'open', 1]);
    await checker.checkNow();
    expect([u.healthy, u.breaker.state, u.latency.size]).toEqual([true, 'closed', 0]);
    u.close();
  });
});
