/**
 * Prometheus metrics, probes and the graceful stop of the real gateway: a known sequence of node RPC
 * calls over URI, JSON-RPC (single, batch) and WebSocket, then one scrape of /metrics whose every
 * family is checked value by value; then /readyz turning 503 while a call in flight is drained.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { unixSeconds } from '../../src/metrics/devnet-metrics';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { Exposition } from '../unit/metrics/exposition';

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** One HTTP request on its own connection (closed after), so that open connections are known. */
function http(url: string, init: { method?: string; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Connection: 'close' };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const req = request(url, { method: init.method ?? 'GET', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const bytes = (text: string) => Buffer.byteLength(text);
const rpc = (id: number | undefined, method: string, params: unknown = {}) =>
  JSON.stringify(id === undefined ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params });

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let gw: TestGateway;
let metricsUrl: string;
/** The node RPC's series of a family (the EVM surface is instrumented too, but idle here). */
const nodeSeries = (e: Exposition, name: string) => e.series(name).filter((row) => row.interface === 'node');
const scrape = async () => new Exposition((await http(`${metricsUrl}/metrics`)).body);

beforeAll(async () => {
  gw = await startTestGateway({
    'instrumentation.prometheus': 'true',
    'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
    // One block at start and no other: heights, the mempool and event counts stay put.
    'devnet.block_time': '1h',
    'rpc.max_request_batch_size': '3',
    'rpc.max_subscriptions_per_client': '1',
    'rpc.max_body_bytes': '2000',
    'rpc.max_open_connections': '4',
    'rpc.timeout_broadcast_tx_commit': '1500ms',
  });
  metricsUrl = gw.metricsUrl!;
});

afterAll(() => gw?.close());

describe('metrics over a known sequence of calls', () => {
  const sent = { uri: 0, jsonrpc: 0, ws: 0 };
  const answered = { uri: 0, jsonrpc: 0, ws: 0 };
  let ws: WebSocket;
  let blockOneTime: string;
  let m: Exposition;

  beforeAll(async () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await until(scrape, (e) => e.value('rpcgw_devnet_block_height') === 1, 'block 1');

    // URI: two successes, a failure, an unsafe refusal (Go's 404 text, not JSON), a WebSocket-only
    // refusal, and a path that names no method (not a call at all).
    const uri = async (path: string, json = true) => {
      const res = await http(gw.url + path);
      sent.uri += bytes(path);
      if (json) answered.uri += bytes(res.body);
      return res;
    };
    await uri('/status');
    blockOneTime = JSON.parse((await uri('/block?height=1')).body).result.block.header.time;
    await uri('/block?height=1');
    expect((await uri('/block?height=50')).status).toBe(500);
    expect((await uri('/dial_seeds', false)).body).toBe('404 page not found\n');
    expect((await uri('/subscribe')).status).toBe(404);
    expect((await http(`${gw.url}/no_such_thing`)).status).toBe(404);

    // JSON-RPC: single calls, a parse error, an unsafe method, a batch, a batch over the limit, a
    // notification, a broadcast that stays in the mempool, and a body over max_body_bytes.
    const post = async (body: string) => {
      const res = await http(`${gw.url}/`, { method: 'POST', body });
      sent.jsonrpc += bytes(body);
      answered.jsonrpc += bytes(res.body);
      return res;
    };
    await post(rpc(1, 'health'));
    await post(rpc(2, 'no_such_method'));
    expect((await post('{"jsonrpc":"2.0",')).status).toBe(500);
    await post(rpc(3, 'unsafe_flush_mempool'));
    const batch = await post(`[${rpc(4, 'health')},${rpc(5, 'status')},${rpc(6, 'nope')}]`);
    expect(JSON.parse(batch.body)).toHaveLength(3);
    const tooMany = await post(`[${[7, 8, 9, 10].map((id) => rpc(id, 'health')).join(',')}]`);
    expect(JSON.parse(tooMany.body).error.data).toMatch(/batch request exceeds maximum/);
    expect((await post(rpc(undefined, 'health'))).body).toBe('');
    const broadcast = await post(rpc(11, 'broadcast_tx_sync', { tx: Buffer.from('k=v').toString('base64') }));
    expect(JSON.parse(broadcast.body).result.code).toBe(0);
    expect((await http(`${gw.url}/`, { method: 'POST', body: rpc(12, 'health', { pad: 'x'.repeat(3000) }) })).status).toBe(400);

    // WebSocket: a success, a subscription, one over max_subscriptions_per_client, a parse error, an
    // unknown method.
    ws = new WebSocket(gw.wsUrl);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const replies: string[] = [];
    ws.on('message', (data: Buffer) => replies.push(data.toString('utf8')));
    const send = async (text: string) => {
      const seen = replies.length;
      ws.send(text);
      sent.ws += bytes(text);
      await until(async () => replies.length, (n) => n > seen, 'a WebSocket reply');
      answered.ws += bytes(replies[seen]);
    };
    await send(rpc(1, 'health'));
    await send(rpc(2, 'subscribe', { query: "tm.event = 'NewBlock'" }));
    await send(rpc(3, 'subscribe', { query: "tm.event = 'Tx'" }));
    expect(JSON.parse(replies[2]).error.data).toBe('max_subscriptions_per_client 1 reached');
    await send('{bad');
    await send(rpc(4, 'made_up'));

    // Connections: the WebSocket and three idle sockets fill max_open_connections = 4; a fifth is refused.
    const port = Number(new URL(gw.url).port);
    const open = (): Promise<Socket> => new Promise((resolve) => connect(port, '127.0.0.1', function (this: Socket) { resolve(this); }));
    const held = [await open(), await open(), await open()];
    await until(scrape, (e) => e.value('rpcgw_open_connections', { interface: 'node', protocol: 'http' }) === 3, '3 open sockets');
    const refused = await open();
    const refusal = await new Promise<string>((resolve) => {
      let text = '';
      refused.on('data', (d) => (text += d.toString())).on('close', () => resolve(text));
    });
    expect(refusal).toMatch(/^HTTP\/1\.1 503/);
    for (const socket of held) socket.destroy();

    m = await until(scrape, (e) => e.value('rpcgw_open_connections', { interface: 'node', protocol: 'http' }) === 0, 'sockets to close');
  });

  afterAll(() => ws?.close());

  const call = (transport: string, method: string, outcome: string) => ({ interface: 'node', transport, method, outcome });

  it('rpcgw_requests_total: every call by transport, method and outcome; unknown names are "other"', () => {
    const expected: Array<[ReturnType<typeof call>, number]> = [
      [call('uri', 'status', 'ok'), 1],
      [call('uri', 'block', 'ok'), 2],
      [call('uri', 'block', '-32603'), 1],
      [call('uri', 'dial_seeds', '-32601'), 1],
      [call('uri', 'subscribe', '-32601'), 1],
      [call('jsonrpc', 'health', 'ok'), 3],
      [call('jsonrpc', 'status', 'ok'), 1],
      [call('jsonrpc', 'other', '-32601'), 2],
      [call('jsonrpc', 'other', '-32700'), 1],
      [call('jsonrpc', 'unsafe_flush_mempool', '-32601'), 1],
      [call('jsonrpc', 'broadcast_tx_sync', 'ok'), 1],
      [call('ws', 'health', 'ok'), 1],
      [call('ws', 'subscribe', 'ok'), 1],
      [call('ws', 'subscribe', '-32603'), 1],
      [call('ws', 'other', '-32700'), 1],
      [call('ws', 'other', '-32601'), 1],
    ];
    expect(nodeSeries(m, 'rpcgw_requests_total')).toHaveLength(expected.length);
    expect(m.series('rpcgw_requests_total').filter((row) => row.interface !== 'node')).toEqual([]);
    for (const [labels, value] of expected) expect([labels, m.value('rpcgw_requests_total', labels)]).toEqual([labels, value]);
    expect(m.text).not.toMatch(/no_such|made_up|"nope"/);
  });

  it('rpcgw_request_duration_seconds: one observation per dispatched call (parse errors are not timed)', () => {
    const counts = nodeSeries(m, 'rpcgw_request_duration_seconds_count');
    const requests = nodeSeries(m, 'rpcgw_requests_total').filter((row) => row.outcome !== '-32700');
    expect(counts).toHaveLength(requests.length);
    for (const { value, ...labels } of requests) {
      expect(m.value('rpcgw_request_duration_seconds_count', labels)).toBe(value);
      expect(m.value('rpcgw_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(value);
      expect(m.value('rpcgw_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    }
    expect(m.value('rpcgw_request_duration_seconds_count', call('jsonrpc', 'other', '-32700'))).toBeUndefined();
  });

  it('rpcgw_in_flight_requests and rpcgw_batch_size', () => {
    expect(m.value('rpcgw_in_flight_requests', { interface: 'node' })).toBe(0);
    expect(m.value('rpcgw_batch_size_count', { interface: 'node' })).toBe(1);
    expect(m.value('rpcgw_batch_size_sum', { interface: 'node' })).toBe(3);
    expect(m.value('rpcgw_batch_size_bucket', { interface: 'node', le: 2 })).toBe(0);
    expect(m.value('rpcgw_batch_size_bucket', { interface: 'node', le: 5 })).toBe(1);
  });

  it('rpcgw_request_bytes_total and rpcgw_response_bytes_total: exactly what went over each transport', () => {
    for (const transport of ['uri', 'jsonrpc', 'ws'] as const) {
      expect([transport, m.value('rpcgw_request_bytes_total', { interface: 'node', transport })]).toEqual([transport, sent[transport]]);
      expect([transport, m.value('rpcgw_response_bytes_total', { interface: 'node', transport })]).toEqual([transport, answered[transport]]);
    }
  });

  it('rpcgw_open_connections and rpcgw_subscriptions', () => {
    expect(m.value('rpcgw_open_connections', { interface: 'node', protocol: 'ws' })).toBe(1);
    expect(m.value('rpcgw_open_connections', { interface: 'node', protocol: 'http' })).toBe(0);
    expect(m.series('rpcgw_subscriptions')).toEqual([{ interface: 'node', kind: 'NewBlock', value: 1 }]);
    expect(m.series('rpcgw_filters')).toEqual([]);
  });

  it('rpcgw_refusals_total: guards by reason, limits by name', () => {
    const refusal = (reason: string, limit?: string): Record<string, string> => (limit ? { interface: 'node', reason, limit } : { interface: 'node', reason });
    const expected: Array<[ReturnType<typeof refusal>, number]> = [
      [refusal('unsafe'), 2],
      [refusal('websocket_only'), 1],
      [refusal('namespace_disabled'), 0],
      [refusal('limit', 'max_request_batch_size'), 1],
      [refusal('limit', 'max_subscriptions_per_client'), 1],
      [refusal('limit', 'max_body_bytes'), 1],
      [refusal('limit', 'max_open_connections'), 1],
    ];
    expect(nodeSeries(m, 'rpcgw_refusals_total')).toHaveLength(expected.length);
    for (const [labels, value] of expected) expect([labels, m.value('rpcgw_refusals_total', labels)]).toEqual([labels, value]);
  });

  it('devnet: height, block time, txs and the mempool', () => {
    expect(m.value('rpcgw_devnet_block_height')).toBe(1);
    expect(m.value('rpcgw_devnet_last_block_timestamp_seconds')).toBeCloseTo(unixSeconds(blockOneTime)!, 6);
    expect(m.value('rpcgw_devnet_block_interval_seconds_count')).toBe(0);
    expect(m.value('rpcgw_devnet_txs_total')).toBe(0);
    expect(m.value('rpcgw_devnet_mempool_txs')).toBe(1);
    expect(m.value('rpcgw_devnet_mempool_bytes')).toBe(3);
  });

  it('upstream, cache and queue families are declared; upstream empty in embedded mode, the cache the devnet\'s, the queue fed by its broadcasts', () => {
    const declared = [
      'rpcgw_upstream_up',
      'rpcgw_upstream_latest_height',
      'rpcgw_upstream_lag_blocks',
      'rpcgw_upstream_request_duration_seconds',
      'rpcgw_upstream_errors_total',
      'rpcgw_upstream_retries_total',
      'rpcgw_upstream_hedges_total',
      'rpcgw_upstream_batched_requests_total',
      'rpcgw_upstream_breaker_state',
      'rpcgw_cache_hits_total',
      'rpcgw_cache_misses_total',
      'rpcgw_cache_bytes',
      'rpcgw_cache_entries',
      'rpcgw_cache_evictions_total',
      'rpcgw_queue_jobs',
      'rpcgw_queue_jobs_total',
      'rpcgw_queue_retries_total',
      'rpcgw_queue_job_duration_seconds',
    ];
    for (const name of declared) expect([name, m.types.has(name)]).toEqual([name, true]);
    expect(m.series('rpcgw_upstream_up')).toEqual([]);
    // The devnet's response cache of each interface, memory only: /block?height=1 is kept at its first
    // answer and served from memory the second time, /block?height=50 (an error) is not kept; a status
    // is kept from its second answer at one head (docs/upstream.md#cache).
    expect(m.series('rpcgw_cache_hits_total')).toEqual([
      { interface: 'node', tier: 'memory', value: expect.any(Number) },
      { interface: 'evm', tier: 'memory', value: 0 },
    ]);
    expect(m.value('rpcgw_cache_hits_total', { interface: 'node', tier: 'memory' })).toBeGreaterThanOrEqual(1);
    expect(m.value('rpcgw_cache_misses_total', { interface: 'node', tier: 'memory' })).toBeGreaterThanOrEqual(3);
    expect(m.value('rpcgw_cache_entries', { interface: 'node' })).toBeGreaterThanOrEqual(1);
    expect(m.value('rpcgw_cache_bytes', { interface: 'node' })).toBeGreaterThan(0);
    // The broadcasts above went through the broadcast queue (in memory here): each one delivered is timed.
    expect(m.value('rpcgw_queue_jobs_total', { outcome: 'delivered' })).toBeGreaterThan(0);
    expect(m.value('rpcgw_queue_job_duration_seconds_count')).toBe(m.value('rpcgw_queue_jobs_total', { outcome: 'delivered' }));
    expect(m.value('rpcgw_queue_jobs', { state: 'failed' })).toBe(0);
  });

  it("the standard process and Node.js families under their standard names; every other name has the prefix", () => {
    expect(m.value('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(m.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(m.value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(m.value('process_start_time_seconds')).toBeGreaterThan(0);
    expect(m.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(m.types.get('nodejs_eventloop_lag_p99_seconds')).toBe('gauge');
    expect(m.value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(m.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
    expect([...m.types.keys()].filter((name) => /^rpcgw_(process|nodejs)_/.test(name))).toEqual([]);
    for (const [name, type] of m.types) {
      expect(name).toMatch(/^(rpcgw_|process_|nodejs_)/);
      if (type === 'counter') expect(name).toMatch(/_total$/);
    }
  });

  it('a closed WebSocket takes its subscription and connection with it', async () => {
    ws.close();
    const after = await until(scrape, (e) => e.value('rpcgw_open_connections', { interface: 'node', protocol: 'ws' }) === 0, 'the WebSocket to close');
    await until(scrape, (e) => e.value('rpcgw_subscriptions', { interface: 'node', kind: 'NewBlock' }) === 0, 'the subscription to end');
    expect(after.value('rpcgw_open_connections', { interface: 'node', protocol: 'http' })).toBe(0);
  });
});

describe('probes and graceful shutdown', () => {
  it('/livez 200; /readyz 200 while serving, 503 once shutdown begins while a call in flight drains', async () => {
    expect(await http(`${metricsUrl}/livez`)).toEqual({ status: 200, body: 'ok\n' });
    const ready = await http(`${metricsUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ status: 'ready', checks: { config: 'ok', listeners: 'ok', backend: 'ok' } });

    // broadcast_tx_commit waits for a block that does not come (block_time 1h) until its 1.5 s timeout.
    const commit = http(`${gw.url}/broadcast_tx_commit?tx="a=b"`);
    await until(scrape, (e) => e.value('rpcgw_in_flight_requests', { interface: 'node' }) === 1, 'the call to be in flight');
    const closing = gw.close();
    const draining = await http(`${metricsUrl}/readyz`);
    expect(draining.status).toBe(503);
    expect(JSON.parse(draining.body).checks.shutdown).toBe('shutting down');
    expect((await http(`${metricsUrl}/livez`)).status).toBe(200);

    // The call in flight is answered, not cut off, and only then does the gateway stop.
    const answer = await commit;
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body).error.data).toMatch(/timed out waiting for tx to be included in a block/);
    await closing;
    await expect(http(`${metricsUrl}/livez`)).rejects.toThrow(/ECONNREFUSED/);
    await expect(http(`${gw.url}/health`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
