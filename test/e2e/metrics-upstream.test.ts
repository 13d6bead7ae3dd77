/**
 * The upstream and cache families of an upstream-mode gateway (under its own `[instrumentation]
 * namespace`): node upstreams `good` (an embedded devnet, its URL carrying credentials), `flaky` (a
 * proxy to it, killed once the first health round has passed) and `dead` (nothing listens), and an
 * anvil as the EVM upstream. A known sequence of calls, one scrape checked family by family; then a
 * reload that drops `flaky` and `dead`, whose series go with them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UpstreamLifecycle } from '../../src/backends/upstream/upstream.module';
import { Anvil } from '../support/anvil';
import { get, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { startUpstreamGateway, TcpProxy, upstreamToml, type NodeEntry, type UpstreamGateway } from '../support/upstream';
import { Exposition } from '../unit/metrics/exposition';

jest.setTimeout(60_000);

const NS = 'edge';
const port = (url: string) => Number(new URL(url).port);
const withCredentials = (url: string) => url.replace('http://', 'http://user:secret@');
const node = (upstream: string) => ({ interface: 'node', upstream });
const evm = (upstream: string) => ({ interface: 'evm', upstream });
const UPSTREAM_FAMILIES = ['up', 'latest_height', 'lag_blocks', 'errors_total', 'retries_total', 'hedges_total', 'breaker_state', 'request_duration_seconds_count'];

let devnet: TestGateway;
let anvil: Anvil;
let flaky: TcpProxy;
let gw: UpstreamGateway;
let evmUrl: string;
let good: NodeEntry;
let anvilEntry: NodeEntry;
const settings = {
  // One health round at start-up and none after: `flaky` stays healthy in the pool's eyes once killed.
  health_check_interval: '1h',
  retries: 1,
  retry_backoff: '10ms',
  breaker_failures: 1,
  breaker_window: 1,
  breaker_open_time: '1h',
};

const scrape = async () => new Exposition((await get(gw.metricsUrl!, '/metrics')).text);
const rpc = (url: string, method: string, params: unknown) => post(url, { jsonrpc: '2.0', id: 1, method, params });

beforeAll(async () => {
  // One block at start and no other: heights stay put.
  devnet = await startTestGateway({ 'devnet.block_time': '1h' });
  await waitForHeight(devnet.url, 1);
  anvil = await Anvil.start();
  flaky = await new TcpProxy(port(devnet.url)).start();
  good = { name: 'good', url: withCredentials(devnet.url) };
  anvilEntry = { name: 'anvil', url: withCredentials(anvil.url) };
  gw = await startUpstreamGateway(
    // `flaky` weighs most, so that it is asked first.
    [good, { name: 'flaky', url: flaky.url, weight: 10 }, { name: 'dead', url: 'http://127.0.0.1:1' }],
    {
      settings,
      evm: [anvilEntry],
      flags: {
        'instrumentation.prometheus': 'true',
        'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
        'instrumentation.namespace': NS,
        'json-rpc.enable': 'true',
        'json-rpc.address': '127.0.0.1:0',
        'json-rpc.ws-address': '127.0.0.1:0',
      },
    },
  );
  evmUrl = gw.evmHttpUrl!;
  await flaky.kill();
});

afterAll(async () => {
  await gw?.close();
  await flaky?.close();
  await anvil?.stop();
  await devnet?.close();
});

describe('upstream metrics over a known sequence of calls', () => {
  let m: Exposition;

  beforeAll(async () => {
    // A past block twice: a miss (asked of `flaky`, refused, hedged at once to `good`), then a hit.
    expect((await rpc(gw.url, 'block', { height: '1' })).json.result.block.header.height).toBe('1');
    expect((await rpc(gw.url, 'block', { height: '1' })).json.result.block.header.height).toBe('1');
    // A block beyond the head: `good` answers an error meaning "not here"; as no upstream has that height, it is final (no retry).
    expect((await rpc(gw.url, 'block', { height: '2' })).json.error.data).toMatch(/must be less than or equal to the current blockchain height/);
    // The EVM genesis block twice: a miss, then a hit.
    for (let i = 0; i < 2; i++) expect((await rpc(evmUrl, 'eth_getBlockByNumber', ['0x0', false])).json.result.number).toBe('0x0');
    m = await scrape();
  });

  it("prefixes every family of the gateway's own with the namespace; process and Node.js families keep their standard names", () => {
    const names = [...m.types.keys()];
    expect(names.length).toBeGreaterThan(40);
    for (const name of names) expect(name).toMatch(new RegExp(`^(${NS}_|process_|nodejs_)`));
    expect(names).toEqual(expect.arrayContaining([`${NS}_upstream_up`, `${NS}_requests_total`, 'process_cpu_user_seconds_total', 'nodejs_eventloop_lag_seconds']));
  });

  it('reports health, heights and lag per upstream', () => {
    expect(m.series(`${NS}_upstream_up`)).toEqual(
      expect.arrayContaining([
        { ...node('good'), value: 1 },
        { ...node('flaky'), value: 1 },
        { ...node('dead'), value: 0 },
        { ...evm('anvil'), value: 1 },
      ]),
    );
    expect(m.series(`${NS}_upstream_up`)).toHaveLength(4);
    expect(m.value(`${NS}_upstream_latest_height`, node('good'))).toBe(1);
    expect(m.value(`${NS}_upstream_latest_height`, node('flaky'))).toBe(1);
    expect(m.value(`${NS}_upstream_latest_height`, node('dead'))).toBe(0);
    expect(m.value(`${NS}_upstream_latest_height`, evm('anvil'))).toBe(0);
    expect(m.value(`${NS}_upstream_lag_blocks`, node('good'))).toBe(0);
    expect(m.value(`${NS}_upstream_lag_blocks`, node('dead'))).toBe(1);
    expect(m.value(`${NS}_upstream_lag_blocks`, evm('anvil'))).toBe(0);
  });

  it('counts errors by kind, retries and hedges, and shows the breaker that opened', () => {
    const errors = (labels: Record<string, string>) =>
      Object.fromEntries(['timeout', 'connection', 'http', 'rpc'].map((kind) => [kind, m.value(`${NS}_upstream_errors_total`, { ...labels, kind })]));
    expect(errors(node('flaky'))).toEqual({ timeout: 0, connection: 1, http: 0, rpc: 0 });
    expect(errors(node('good'))).toEqual({ timeout: 0, connection: 0, http: 0, rpc: 1 });
    expect(errors(node('dead'))).toEqual({ timeout: 0, connection: 0, http: 0, rpc: 0 });
    expect(errors(evm('anvil'))).toEqual({ timeout: 0, connection: 0, http: 0, rpc: 0 });

    expect(m.value(`${NS}_upstream_retries_total`, node('good'))).toBe(0);
    expect(m.value(`${NS}_upstream_retries_total`, node('flaky'))).toBe(0);
    expect(m.value(`${NS}_upstream_hedges_total`, node('good'))).toBe(1);
    expect(m.value(`${NS}_upstream_hedges_total`, node('flaky'))).toBe(0);

    expect(m.value(`${NS}_upstream_breaker_state`, node('flaky'))).toBe(2);
    expect(m.value(`${NS}_upstream_breaker_state`, node('good'))).toBe(0);
    expect(m.value(`${NS}_upstream_breaker_state`, node('dead'))).toBe(0);
  });

  it('times the requests each upstream answered, JSON-RPC errors included', () => {
    expect(m.value(`${NS}_upstream_request_duration_seconds_count`, node('good'))).toBe(2);
    expect(m.value(`${NS}_upstream_request_duration_seconds_bucket`, { ...node('good'), le: '+Inf' })).toBe(2);
    expect(m.value(`${NS}_upstream_request_duration_seconds_sum`, node('good'))).toBeGreaterThan(0);
    expect(m.value(`${NS}_upstream_request_duration_seconds_count`, evm('anvil'))).toBe(1);
    // Never answered: no latency.
    expect(m.value(`${NS}_upstream_request_duration_seconds_count`, node('flaky'))).toBeUndefined();
    expect(m.value(`${NS}_upstream_request_duration_seconds_count`, node('dead'))).toBeUndefined();
  });

  it('counts cache hits and misses and sizes the cache, per interface', () => {
    expect(m.value(`${NS}_cache_hits_total`, { interface: 'node', tier: 'memory' })).toBe(1);
    expect(m.value(`${NS}_cache_misses_total`, { interface: 'node', tier: 'memory' })).toBe(2);
    expect(m.value(`${NS}_cache_entries`, { interface: 'node' })).toBe(1);
    expect(m.value(`${NS}_cache_bytes`, { interface: 'node' })).toBeGreaterThan(0);
    expect(m.value(`${NS}_cache_evictions_total`, { interface: 'node' })).toBe(0);
    expect(m.value(`${NS}_cache_hits_total`, { interface: 'evm', tier: 'memory' })).toBe(1);
    expect(m.value(`${NS}_cache_misses_total`, { interface: 'evm', tier: 'memory' })).toBe(1);
    expect(m.value(`${NS}_cache_entries`, { interface: 'evm' })).toBe(1);
  });

  it('never shows an upstream URL beyond scheme://host:port', async () => {
    expect(m.text).not.toContain('secret');
    const described = gw.backend.pool.stats().upstreams.map((u) => [u.name, u.url]);
    expect(described).toEqual([
      ['good', devnet.url],
      ['flaky', flaky.url],
      ['dead', 'http://127.0.0.1:1'],
    ]);
  });
});

describe('a reload', () => {
  it('drops the series of the upstreams gone and keeps the others', async () => {
    writeFileSync(join(gw.home, 'config', 'gateway.toml'), upstreamToml([good], settings, [anvilEntry]));
    await gw.app.get(UpstreamLifecycle).reload();
    const m = await scrape();
    for (const family of UPSTREAM_FAMILIES) {
      const names = m.series(`${NS}_upstream_${family}`).map((row) => `${row.interface}/${row.upstream}`);
      expect([family, [...new Set(names)].sort()]).toEqual([family, ['evm/anvil', 'node/good']]);
    }
    expect(m.value(`${NS}_upstream_request_duration_seconds_count`, node('good'))).toBe(2);
    expect(m.value(`${NS}_upstream_hedges_total`, node('good'))).toBe(1);
  });
});
