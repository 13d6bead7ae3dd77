/**
 * The query caps of `[limits]` (max_query_length, max_query_conditions) on subscribe, tx_search and
 * block_search, over URI, POST, batch and WebSocket, on the devnet and in upstream mode, where
 * tx_search and block_search are forwarded: the cap is checked before the call leaves the gateway.
 */
import { get, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';
import { Exposition } from '../unit/metrics/exposition';

jest.setTimeout(60_000);

const conditions = (n: number) => Array.from({ length: n }, (_, i) => `a.k${i}='v'`).join(' AND ');
const TOO_LONG = { code: -32603, message: 'Internal error', data: 'maximum query length exceeded' };
const tooMany = (n: number, max: number) => ({ code: -32603, message: 'Internal error', data: `maximum query conditions exceeded (${n} > ${max})` });

describe('defaults: 512 bytes (CometBFT) and 20 conditions', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ 'instrumentation.prometheus': 'true', 'instrumentation.prometheus_listen_addr': '127.0.0.1:0' });
    await waitForHeight(gw.url, 1);
  });
  afterAll(() => gw?.close());

  it('tx_search and block_search: a query over 512 bytes, or of more than 20 conditions, is refused', async () => {
    const long = `tx.height>0 AND a.b='${'x'.repeat(520)}'`;
    for (const method of ['tx_search', 'block_search']) {
      expect((await post(gw.url, { jsonrpc: '2.0', id: 1, method, params: { query: long } })).json.error).toEqual(TOO_LONG);
      expect((await post(gw.url, { jsonrpc: '2.0', id: 1, method, params: { query: conditions(21) } })).json.error).toEqual(tooMany(21, 20));
      // 20 conditions within 512 bytes run (and find nothing).
      const within = await post(gw.url, { jsonrpc: '2.0', id: 1, method, params: { query: conditions(20) } });
      expect(within.json.result.total_count).toBe('0');
    }
  });

  it('over URI the refusal is the same JSON-RPC error, with HTTP 500 as CometBFT answers its own', async () => {
    const res = await get(gw.url, `/tx_search?query=${encodeURIComponent(`"${conditions(25)}"`)}`);
    expect(res.status).toBe(500);
    expect(res.json.error).toEqual(tooMany(25, 20));
  });

  it('a batch refuses the member over the cap only', async () => {
    const res = await post(gw.url, [
      { jsonrpc: '2.0', id: 1, method: 'block_search', params: { query: conditions(30) } },
      { jsonrpc: '2.0', id: 2, method: 'block_search', params: { query: 'block.height>0' } },
    ]);
    expect(res.json[0].error).toEqual(tooMany(30, 20));
    expect(res.json[1].result.total_count).not.toBe('0');
  });

  it('subscribe over WebSocket: length and conditions', async () => {
    const ws = await PipelineSocket.connect(gw.wsUrl);
    ws.pipeline([
      { jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: `tm.event='Tx' AND a.b='${'y'.repeat(600)}'` } },
      { jsonrpc: '2.0', id: 2, method: 'subscribe', params: { query: conditions(21) } },
      { jsonrpc: '2.0', id: 3, method: 'subscribe', params: { query: conditions(20) } },
    ]);
    const [a, b, c] = (await ws.collect(3)).sort((x, y) => x.id - y.id);
    expect(a.error).toEqual(TOO_LONG);
    expect(b.error).toEqual(tooMany(21, 20));
    expect(c.result).toEqual({});
    await ws.close();
  });

  it('a query that does not parse keeps its own error', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'tx_search', params: { query: "a.b='x' AND" } });
    expect(res.json.error.code).toBe(-32603);
    expect(res.json.error.data).not.toMatch(/maximum/);
  });

  it('refusals are counted under the cap that made them', async () => {
    const scrape = new Exposition(await (await fetch(`${gw.metricsUrl}/metrics`)).text());
    expect(scrape.value('rpcgw_refusals_total', { interface: 'node', reason: 'limit', limit: 'max_query_conditions' })).toBeGreaterThanOrEqual(5);
    expect(scrape.value('rpcgw_refusals_total', { interface: 'node', reason: 'limit', limit: 'max_query_length' })).toBeGreaterThanOrEqual(3);
  });
});

describe('configured caps, in upstream mode (tx_search and block_search are forwarded)', () => {
  let devnet: TestGateway;
  let gw: UpstreamGateway;

  beforeAll(async () => {
    devnet = await startTestGateway({ 'limits.max_query_conditions': '0' });
    await waitForHeight(devnet.url, 2);
    gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], { flags: { 'limits.max_query_conditions': '3', 'limits.max_query_length': '80' } });
    await waitForHeight(gw.url, 2);
  });
  afterAll(async () => {
    await gw?.close();
    await devnet?.close();
  });

  it('refuses before forwarding: the upstream never sees the call', async () => {
    const upstream = gw.backend.pool.upstreams[0];
    const before = upstream.counters.requests;
    const many = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'tx_search', params: { query: conditions(4) } });
    expect(many.json.error).toEqual(tooMany(4, 3));
    const long = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'block_search', params: { query: `block.height>0 AND a.b='${'z'.repeat(80)}'` } });
    expect(long.json.error).toEqual(TOO_LONG);
    expect(upstream.counters.requests).toBe(before);
    // The devnet itself, with no condition cap, runs the same query.
    expect((await post(devnet.url, { jsonrpc: '2.0', id: 1, method: 'tx_search', params: { query: conditions(4) } })).json.result.total_count).toBe('0');
  });

  it('a query within the caps is forwarded and answered', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'block_search', params: { query: 'block.height>=1 AND block.height<=2' } });
    expect(res.json.result.total_count).toBe('2');
  });

  it('subscribe in upstream mode: the same caps', async () => {
    const ws = await PipelineSocket.connect(gw.wsUrl);
    ws.pipeline([
      { jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: conditions(4) } },
      { jsonrpc: '2.0', id: 2, method: 'subscribe', params: { query: "tm.event='NewBlock'" } },
    ]);
    const [a, b] = (await ws.collect(2, (m) => m.id === 1 || (m.id === 2 && !('query' in (m.result ?? {}))))).sort((x, y) => x.id - y.id);
    expect(a.error).toEqual(tooMany(4, 3));
    expect(b.result).toEqual({});
    await ws.close();
  });
});
