import type { CanActivate } from '@nestjs/common';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { MetricsService, surfaceMeters } from '../../../src/metrics/metrics.service';
import type { CallContext } from '../../../src/rpc/call-context';
import { Dispatcher, guardedCall, type ErrorDialect } from '../../../src/rpc/dispatcher';
import { InternalError, LimitError, MethodNotFoundError, RpcError } from '../../../src/rpc/errors';
import { MethodRegistry } from '../../../src/rpc/method-registry';
import type { MethodArgs, MethodSpec } from '../../../src/rpc/method-spec';
import { Exposition } from './exposition';

const config = (prometheus: boolean) => ({ instrumentation: { prometheus, namespace: 'rpcgw' } }) as GatewayConfigService;

const unsafeGuard: CanActivate = {
  canActivate(context) {
    if (guardedCall(context).call.spec.unsafe) throw new MethodNotFoundError('unsafe');
    return true;
  },
};
const dialect: ErrorDialect = { toRpcError: (err) => (err instanceof RpcError ? err : new InternalError()) };

function surface() {
  const registry = new MethodRegistry();
  let release: () => void = () => undefined;
  const method = (name: string, handler: MethodSpec['handler'], extra: Partial<MethodSpec> = {}): MethodSpec => ({ name, group: 'test', params: [], handler, ...extra });
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
  const dispatcher = new Dispatcher(registry, { decode: (_spec, params) => (params ?? {}) as MethodArgs }, [unsafeGuard], dialect);
  return { dispatcher, release: () => release() };
}

const ctx = (transport: CallContext['transport']): CallContext => ({ transport, remote: '127.0.0.1:1', requestId: 1 });

describe('MetricsService on a dispatcher', () => {
  let metrics: MetricsService;
  beforeEach(() => {
    metrics = new MetricsService(config(true));
  });

  async function scrape(): Promise<Exposition> {
    return new Exposition(await metrics.scrape());
  }

  it('counts and times calls by interface, transport, method and outcome; unknown names are "other"', async () => {
    const { dispatcher } = surface();
    metrics.instrument('node', dispatcher);
    await dispatcher.dispatch({ method: 'ping', params: {}, id: 1 }, ctx('jsonrpc'));
    await dispatcher.dispatch({ method: 'ping', params: {}, id: 2 }, ctx('jsonrpc'));
    await dispatcher.dispatch({ method: 'ping', params: {}, id: 3 }, ctx('ws'));
    await dispatcher.dispatch({ method: 'fail', params: {}, id: 4 }, ctx('uri'));
    await dispatcher.dispatch({ method: 'odd', params: {}, id: 5 }, ctx('uri'));
    await dispatcher.dispatch({ method: 'made_up_1', params: {}, id: 6 }, ctx('jsonrpc'));
    await dispatcher.dispatch({ method: 'made_up_2', params: {}, id: 7 }, ctx('jsonrpc'));
    metrics.rejected('node', 'jsonrpc', -32700);

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
    const { dispatcher } = surface();
    metrics.instrument('node', dispatcher);
    await dispatcher.dispatch({ method: 'ping', params: {}, id: 1 }, ctx('uri'));
    expect((await scrape()).value('rpcgw_requests_total', { interface: 'node', transport: 'uri', method: 'ping', outcome: 'ok' })).toBe(1);
    expect((await scrape()).value('rpcgw_requests_total', { interface: 'node', transport: 'uri', method: 'ping', outcome: 'ok' })).toBe(1);
    await dispatcher.dispatch({ method: 'ping', params: {}, id: 1 }, ctx('uri'));
    expect((await scrape()).value('rpcgw_requests_total', { interface: 'node', transport: 'uri', method: 'ping', outcome: 'ok' })).toBe(2);
  });

  it('counts guard refusals and limits by reason, starting every guard reason at zero', async () => {
    const { dispatcher } = surface();
    metrics.instrument('evm', dispatcher);
    let m = await scrape();
    for (const reason of ['unsafe', 'websocket_only', 'namespace_disabled', 'not_implemented']) {
      expect(m.value('rpcgw_refusals_total', { interface: 'evm', reason })).toBe(0);
    }
    await dispatcher.dispatch({ method: 'danger', params: {}, id: 1 }, ctx('jsonrpc'));
    await dispatcher.dispatch({ method: 'danger', params: {}, id: 2 }, ctx('ws'));
    await dispatcher.dispatch({ method: 'crowded', params: {}, id: 3 }, ctx('ws'));
    surfaceMeters(metrics, 'evm').refuse('batch-request-limit');
    m = await scrape();
    expect(m.value('rpcgw_refusals_total', { interface: 'evm', reason: 'unsafe' })).toBe(2);
    expect(m.value('rpcgw_refusals_total', { interface: 'evm', reason: 'limit', limit: 'max_things' })).toBe(1);
    expect(m.value('rpcgw_refusals_total', { interface: 'evm', reason: 'limit', limit: 'batch-request-limit' })).toBe(1);
    expect(m.value('rpcgw_requests_total', { interface: 'evm', transport: 'jsonrpc', method: 'danger', outcome: '-32601' })).toBe(1);
  });

  it('samples the calls in flight at scrape time', async () => {
    const { dispatcher, release } = surface();
    metrics.instrument('node', dispatcher);
    const pending = dispatcher.dispatch({ method: 'slow', params: {}, id: 1 }, ctx('ws'));
    await new Promise((r) => setImmediate(r));
    expect(dispatcher.inFlight).toBe(1);
    expect((await scrape()).value('rpcgw_in_flight_requests', { interface: 'node' })).toBe(1);
    release();
    await pending;
    expect(dispatcher.inFlight).toBe(0);
    expect((await scrape()).value('rpcgw_in_flight_requests', { interface: 'node' })).toBe(0);
  });

  it('transport meters: bytes by transport, batch sizes, subscriptions and filters that end once', async () => {
    const meters = surfaceMeters(metrics, 'node');
    meters.uri.requestBytes.inc(7);
    expect(meters.counted(meters.uri, 'héllo')).toBe('héllo');
    meters.jsonrpc.requestBytes.inc(40);
    meters.jsonrpc.requestBytes.inc(2);
    meters.batchSize.observe(3);
    meters.batchSize.observe(12);
    const end = metrics.subscriptionOpened('node', 'NewBlock');
    metrics.subscriptionOpened('node', 'NewBlock');
    const removed = metrics.filterInstalled('logs');
    end();
    end();
    removed();
    metrics.sampleConnections('node', () => 5, () => 2);
    const m = await scrape();
    expect(m.value('rpcgw_request_bytes_total', { interface: 'node', transport: 'uri' })).toBe(7);
    expect(m.value('rpcgw_response_bytes_total', { interface: 'node', transport: 'uri' })).toBe(6);
    expect(m.value('rpcgw_request_bytes_total', { interface: 'node', transport: 'jsonrpc' })).toBe(42);
    expect(m.value('rpcgw_batch_size_count', { interface: 'node' })).toBe(2);
    expect(m.value('rpcgw_batch_size_sum', { interface: 'node' })).toBe(15);
    expect(m.value('rpcgw_batch_size_bucket', { interface: 'node', le: 5 })).toBe(1);
    expect(m.value('rpcgw_subscriptions', { interface: 'node', kind: 'NewBlock' })).toBe(1);
    expect(m.value('rpcgw_filters', { kind: 'logs' })).toBe(0);
    expect(m.value('rpcgw_open_connections', { interface: 'node', protocol: 'ws' })).toBe(2);
    expect(m.value('rpcgw_open_connections', { interface: 'node', protocol: 'http' })).toBe(3);
  });

  it('every name has the prefix and Prometheus conventions hold', async () => {
    const m = await scrape();
    for (const [name, type] of m.types) {
      expect(name.startsWith('rpcgw_')).toBe(true);
      if (type === 'counter') expect(name.endsWith('_total')).toBe(true);
    }
    expect(m.types.get('rpcgw_request_duration_seconds')).toBe('histogram');
    expect(m.types.get('rpcgw_process_cpu_user_seconds_total')).toBe('counter');
    for (const family of ['rpcgw_upstream_up', 'rpcgw_upstream_lag_blocks', 'rpcgw_upstream_breaker_state', 'rpcgw_cache_hits_total', 'rpcgw_queue_jobs_total']) {
      expect(m.types.has(family)).toBe(true);
    }
  });
});

describe('MetricsService with prometheus = false', () => {
  it('leaves the dispatcher and the transports uninstrumented', async () => {
    const metrics = new MetricsService(config(false));
    const { dispatcher } = surface();
    metrics.instrument('node', dispatcher);
    await dispatcher.dispatch({ method: 'ping', params: {}, id: 1 }, ctx('uri'));
    const meters = surfaceMeters(metrics, 'node');
    meters.uri.requestBytes.inc(10);
    meters.refuse('max_body_bytes');
    metrics.subscriptionOpened('node', 'Tx')();
    const m = new Exposition(await metrics.scrape());
    expect(m.series('rpcgw_requests_total')).toEqual([]);
    expect(m.series('rpcgw_request_bytes_total')).toEqual([]);
    expect(m.series('rpcgw_refusals_total')).toEqual([]);
    expect(m.types.has('rpcgw_process_cpu_user_seconds_total')).toBe(false);
  });

  it('meters without a MetricsService at all are no-ops', () => {
    const meters = surfaceMeters(undefined, 'node');
    expect(() => {
      meters.ws.requestBytes.inc(3);
      meters.batchSize.observe(2);
      meters.refuse('x');
      meters.rejected('ws', -32700);
    }).not.toThrow();
    expect(meters.counted(meters.ws, 'abc')).toBe('abc');
  });
});
