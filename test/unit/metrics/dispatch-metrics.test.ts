import { Logger } from '@nestjs/common';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { MetricsService } from '../../../src/metrics/metrics.service';
import { NodeDialect } from '../../../src/node-rpc/node-dialect';
import type { CallContext } from '../../../src/rpc/call-context';
import type { Limit } from '../../../src/rpc/dialect';
import { RpcEngine } from '../../../src/rpc/engine';
import { InternalError, LimitError, MethodNotFoundError, RpcError } from '../../../src/rpc/errors';
import { defineMethod, type AnyMethod, type MethodMeta } from '../../../src/rpc/method';
import { MethodRegistry } from '../../../src/rpc/method-registry';
import { Exposition } from './exposition';

Logger.overrideLogger(false);

const config = (prometheus: boolean) => ({ instrumentation: { prometheus, namespace: 'rpcgw' } }) as GatewayConfigService;

const NO_BATCH_LIMIT: Limit = { max: 0, key: 'max_request_batch_size' };

/** An engine over test methods; `[rpc] unsafe` is off, so `danger` is refused by the unsafe guard. */
function surface(batchRequests: Limit = NO_BATCH_LIMIT) {
  const registry = new MethodRegistry();
  let release: () => void = () => undefined;
  const method = (name: string, handler: () => unknown, extra: MethodMeta<object, unknown> = {}): AnyMethod =>
    defineMethod({ name, group: 'test', params: [], handler, ...extra });
  registry.registerAll([
    method('ping', () => 'pong'),
    method('fail', () => {
      throw new InternalError('Internal error', 'boom');
    }),
    method('odd', () => {
      throw new RpcError(12345, 'a code nobody knows');
    }),
    method('crowded', () => {
      throw new LimitError('max_things', 'too many things');
    }),
    method('danger', () => 'done', { unsafe: true }),
    method('slow', () => new Promise<string>((resolve) => (release = () => resolve('late')))),
  ]);
  const engine = new RpcEngine(
    new NodeDialect(),
    registry,
    { unsafeEnabled: () => false, groupEnabled: () => true, websocketOnlyRefusal: () => new MethodNotFoundError('websocket-only') },
    () => ({ requests: batchRequests, responseBytes: { max: 0, key: '' } }),
  );
  return { engine, release: () => release() };
}

const ctx = (transport: CallContext['transport']): CallContext => ({ transport, remote: '127.0.0.1:1', requestId: 1 });
/** A body as a transport hands it to the engine; `bytes` is what the transport counted. */
const body = (engine: RpcEngine, text: string, transport: CallContext['transport'], bytes = Buffer.byteLength(text)) =>
  engine.handle(text, { transport, remote: '127.0.0.1:1', bytes });
const pings = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping', params: {} })));

describe('MetricsService on an engine', () => {
  let metrics: MetricsService;
  beforeEach(() => {
    metrics = new MetricsService(config(true));
  });

  async function scrape(): Promise<Exposition> {
    return new Exposition(await metrics.scrape());
  }

  it('counts and times calls by interface, transport, method and outcome; unknown names are "other"', async () => {
    const { engine } = surface();
    metrics.instrument('node', engine);
    await engine.call({ method: 'ping', params: {}, id: 1 }, ctx('jsonrpc'));
    await engine.call({ method: 'ping', params: {}, id: 2 }, ctx('jsonrpc'));
    await engine.call({ method: 'ping', params: {}, id: 3 }, ctx('ws'));
    await engine.call({ method: 'fail', params: {}, id: 4 }, ctx('uri'));
    await engine.call({ method: 'odd', params: {}, id: 5 }, ctx('uri'));
    await engine.call({ method: 'made_up_1', params: {}, id: 6 }, ctx('jsonrpc'));
    await engine.call({ method: 'made_up_2', params: {}, id: 7 }, ctx('jsonrpc'));
    await body(engine, '{"jsonrpc":', 'jsonrpc');

    const m = await scrape();
    const labels = (transport: string, method: string, outcome: string) => ({ interface: 'node', transport, method, outcome });
    expect(m.series('rpcgw_requests_total')).toHaveLength(6);
    expect(m.value('rpcgw_requests_total', labels('jsonrpc', 'ping', 'ok'))).toBe(2);
    expect(m.value('rpcgw_requests_total', labels('ws', 'ping', 'ok'))).toBe(1);
    expect(m.value('rpcgw_requests_total', labels('uri', 'fail', '-32603'))).toBe(1);
    expect(m.value('rpcgw_requests_total', labels('uri', 'odd', 'error'))).toBe(1);
    expect(m.value('rpcgw_requests_total', labels('jsonrpc', 'other', '-32601'))).toBe(2);
    expect(m.value('rpcgw_requests_total', labels('jsonrpc', 'other', '-32700'))).toBe(1);
    expect(m.text).not.toContain('made_up');

    expect(m.value('rpcgw_request_duration_seconds_count', labels('jsonrpc', 'ping', 'ok'))).toBe(2);
    expect(m.value('rpcgw_request_duration_seconds_bucket', { ...labels('jsonrpc', 'ping', 'ok'), le: '+Inf' })).toBe(2);
    expect(m.value('rpcgw_request_duration_seconds_sum', labels('jsonrpc', 'ping', 'ok'))).toBeGreaterThan(0);
    expect(m.value('rpcgw_request_duration_seconds_count', labels('jsonrpc', 'other', '-32601'))).toBe(2);
    // A call rejected before dispatch is counted, not timed.
    expect(m.value('rpcgw_request_duration_seconds_count', labels('jsonrpc', 'other', '-32700'))).toBeUndefined();
  });

  it('a second scrape does not count twice', async () => {
    const { engine } = surface();
    metrics.instrument('node', engine);
    await engine.call({ method: 'ping', params: {}, id: 1 }, ctx('uri'));
    expect((await scrape()).value('rpcgw_requests_total', { interface: 'node', transport: 'uri', method: 'ping', outcome: 'ok' })).toBe(1);
    expect((await scrape()).value('rpcgw_requests_total', { interface: 'node', transport: 'uri', method: 'ping', outcome: 'ok' })).toBe(1);
    await engine.call({ method: 'ping', params: {}, id: 1 }, ctx('uri'));
    expect((await scrape()).value('rpcgw_requests_total', { interface: 'node', transport: 'uri', method: 'ping', outcome: 'ok' })).toBe(2);
  });

  it('counts guard refusals and limits by reason, starting every guard reason at zero', async () => {
    const { engine } = surface({ max: 1, key: 'batch-request-limit' });
    metrics.instrument('evm', engine);
    let m = await scrape();
    for (const reason of ['unsafe', 'websocket_only', 'namespace_disabled']) {
      expect(m.value('rpcgw_refusals_total', { interface: 'evm', reason })).toBe(0);
    }
    await engine.call({ method: 'danger', params: {}, id: 1 }, ctx('jsonrpc'));
    await engine.call({ method: 'danger', params: {}, id: 2 }, ctx('ws'));
    await engine.call({ method: 'crowded', params: {}, id: 3 }, ctx('ws'));
    await body(engine, pings(2), 'jsonrpc');
    m = await scrape();
    expect(m.value('rpcgw_refusals_total', { interface: 'evm', reason: 'unsafe' })).toBe(2);
    expect(m.value('rpcgw_refusals_total', { interface: 'evm', reason: 'limit', limit: 'max_things' })).toBe(1);
    expect(m.value('rpcgw_refusals_total', { interface: 'evm', reason: 'limit', limit: 'batch-request-limit' })).toBe(1);
    expect(m.value('rpcgw_requests_total', { interface: 'evm', transport: 'jsonrpc', method: 'danger', outcome: '-32601' })).toBe(1);
  });

  it('samples the calls in flight at scrape time', async () => {
    const { engine, release } = surface();
    metrics.instrument('node', engine);
    const pending = engine.call({ method: 'slow', params: {}, id: 1 }, ctx('ws'));
    await new Promise((r) => setImmediate(r));
    expect(engine.inFlight).toBe(1);
    expect((await scrape()).value('rpcgw_in_flight_requests', { interface: 'node' })).toBe(1);
    release();
    await pending;
    expect(engine.inFlight).toBe(0);
    expect((await scrape()).value('rpcgw_in_flight_requests', { interface: 'node' })).toBe(0);
  });

  it('transport meters: bytes by transport, batch sizes, subscriptions and filters that end once', async () => {
    const { engine } = surface();
    metrics.instrument('node', engine);
    engine.countRequest('uri', 7);
    engine.countAnswer('uri', 6);
    const replies = [await body(engine, pings(3), 'jsonrpc', 40), await body(engine, pings(12), 'jsonrpc', 2)];
    // A reply's size is its body's UTF-8 bytes, counted once for the metric and the transport.
    for (const reply of replies) expect(reply.bytes).toBe(Buffer.byteLength(reply.body as string));
    const end = metrics.subscriptionOpened('node', 'NewBlock');
    metrics.subscriptionOpened('node', 'NewBlock');
    const removed = metrics.filterInstalled('logs');
    end();
    end();
    removed();
    metrics.sampleConnections('node', () => ({ http: 3, ws: 2 }));
    const m = await scrape();
    expect(m.value('rpcgw_request_bytes_total', { interface: 'node', transport: 'uri' })).toBe(7);
    expect(m.value('rpcgw_response_bytes_total', { interface: 'node', transport: 'uri' })).toBe(6);
    expect(m.value('rpcgw_request_bytes_total', { interface: 'node', transport: 'jsonrpc' })).toBe(42);
    expect(m.value('rpcgw_response_bytes_total', { interface: 'node', transport: 'jsonrpc' })).toBe(replies[0].bytes + replies[1].bytes);
    expect(m.value('rpcgw_batch_size_count', { interface: 'node' })).toBe(2);
    expect(m.value('rpcgw_batch_size_sum', { interface: 'node' })).toBe(15);
    expect(m.value('rpcgw_batch_size_bucket', { interface: 'node', le: 5 })).toBe(1);
    expect(m.value('rpcgw_subscriptions', { interface: 'node', kind: 'NewBlock' })).toBe(1);
    expect(m.value('rpcgw_filters', { kind: 'logs' })).toBe(0);
    expect(m.value('rpcgw_open_connections', { interface: 'node', protocol: 'ws' })).toBe(2);
    expect(m.value('rpcgw_open_connections', { interface: 'node', protocol: 'http' })).toBe(3);
  });

  it('every name has the prefix (process and Node.js families their standard names) and Prometheus conventions hold', async () => {
    const m = await scrape();
    for (const [name, type] of m.types) {
      expect(name).toMatch(/^(rpcgw_|process_|nodejs_)/);
      if (type === 'counter') expect(name.endsWith('_total')).toBe(true);
    }
    expect(m.types.get('rpcgw_request_duration_seconds')).toBe('histogram');
    expect(m.types.get('process_cpu_user_seconds_total')).toBe('counter');
    for (const family of ['rpcgw_upstream_up', 'rpcgw_upstream_lag_blocks', 'rpcgw_upstream_breaker_state', 'rpcgw_cache_hits_total', 'rpcgw_queue_jobs_total']) {
      expect(m.types.has(family)).toBe(true);
    }
  });
});

describe('MetricsService with prometheus = false', () => {
  it('leaves the engine and the transports uninstrumented', async () => {
    const metrics = new MetricsService(config(false));
    const { engine } = surface();
    metrics.instrument('node', engine);
    await engine.call({ method: 'ping', params: {}, id: 1 }, ctx('uri'));
    engine.countRequest('uri', 10);
    metrics.refuse('node', 'limit', 'max_body_bytes');
    metrics.subscriptionOpened('node', 'Tx')();
    const m = new Exposition(await metrics.scrape());
    expect(m.series('rpcgw_requests_total')).toEqual([]);
    expect(m.series('rpcgw_request_bytes_total')).toEqual([]);
    expect(m.series('rpcgw_refusals_total')).toEqual([]);
    expect(m.types.has('process_cpu_user_seconds_total')).toBe(false);
  });

  it('meters without a MetricsService at all are no-ops', async () => {
    const { engine } = surface({ max: 2, key: 'x' });
    await expect(
      (async () => {
        engine.countRequest('ws', 3);
        await body(engine, pings(2), 'jsonrpc');
        await body(engine, pings(3), 'jsonrpc');
        await body(engine, '{"jsonrpc":', 'ws');
      })(),
    ).resolves.toBeUndefined();
    expect(() => engine.countAnswer('ws', 3)).not.toThrow();
  });
});
