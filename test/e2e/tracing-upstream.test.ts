/**
 * Tracing switched on by the standard environment alone (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTLP over
 * HTTP as JSON) on a gateway process in front of one anvil reached two ways, through proxies that hold
 * every request 300 ms (`a`) and 800 ms (`b`). With `hedge_max_delay` at 100 ms, every read is hedged
 * whichever upstream is asked first: its trace, under the client's trace id, has the call's span and one
 * child span per attempt, and each upstream got the `traceparent` of its own attempt's span.
 */
import { Anvil, ANVIL_ADDRESS_0 } from '../support/anvil';
import { until } from '../support/fault-bench';
import { OtlpHttpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { DelayProxy, startUpstreamGatewayProcess, upstreamToml, type UpstreamGatewayProcess } from '../support/upstream';

jest.setTimeout(120_000);

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

function rpc(url: string, body: unknown, traceparent?: string): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (traceparent) headers.traceparent = traceparent;
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) }).then((res) => res.json());
}

describe('tracing on by OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, in upstream mode with a hedge', () => {
  let anvil: Anvil;
  let a: DelayProxy;
  let b: DelayProxy;
  let collector: OtlpHttpReceiver;
  let gw: UpstreamGatewayProcess;

  const ofTrace = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId);

  beforeAll(async () => {
    collector = await new OtlpHttpReceiver().start();
    anvil = await Anvil.start({ chainId: 9001, noMining: true });
    a = await new DelayProxy(anvil.port, 300).start();
    b = await new DelayProxy(anvil.port, 800).start();
    // latest_ttl 0: eth_getBalance at latest is never cached. A probe gets 2 s, enough for 800 ms on a loaded host.
    const toml = upstreamToml([], { health_check_interval: '1s', latest_ttl: 0, hedge_max_delay: '100ms' }, [
      { name: 'a', url: a.url },
      { name: 'b', url: b.url },
    ]);
    gw = await startUpstreamGatewayProcess(toml, { 'log.level': 'debug' }, 60_000, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    await gw.waitForLog(/2 of 2 EVM upstreams healthy/, 30_000, 0);
  });

  afterAll(async () => {
    await gw?.close();
    await a?.close();
    await b?.close();
    await anvil?.stop();
    await collector?.close();
  });

  it('gives a hedged read one span under the client trace, a child per attempt, and each upstream its traceparent', async () => {
    const answer = (await rpc(gw.evmUrl, { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [ANVIL_ADDRESS_0, 'latest'] }, `00-${TRACE_ID}-${CLIENT_SPAN}-01`)) as { result?: string };
    expect(typeof answer.result).toBe('string');
    await until(() => ofTrace(TRACE_ID).length >= 3, 'the call span and its two attempt spans at the collector', 30_000);

    const spans = ofTrace(TRACE_ID);
    const call = spans.find((s) => s.name === 'eth_getBalance')!;
    expect(call).toMatchObject({
      parentSpanId: CLIENT_SPAN,
      kind: 2,
      service: 'rpc-gateway',
      attributes: { 'rpc.system': 'jsonrpc', 'rpc.method': 'eth_getBalance', 'rpcgw.interface': 'evm', 'rpcgw.transport': 'jsonrpc', 'rpcgw.outcome': 'ok' },
    });
    const attempts = spans.filter((s) => s.parentSpanId === call.spanId);
    expect(attempts.map((s) => [s.attributes['rpcgw.upstream'], s.attributes['rpcgw.attempt'], s.attributes['rpcgw.upstream.status']])).toHaveLength(2);
    for (const attempt of attempts) expect(attempt).toMatchObject({ name: 'upstream eth_getBalance', kind: 3, attributes: { 'rpc.method': 'eth_getBalance' } });
    const first = attempts.find((s) => s.attributes['rpcgw.attempt'] === 'first')!;
    const hedge = attempts.find((s) => s.attributes['rpcgw.attempt'] === 'hedge')!;
    expect([first.attributes['rpcgw.upstream'], hedge.attributes['rpcgw.upstream']].sort()).toEqual(['a', 'b']);
    // The one that answered first is 'ok'; the other was cut off ('aborted'), unless both answers came in the same turn.
    const statuses = attempts.map((s) => s.attributes['rpcgw.upstream.status']);
    expect(statuses).toContain('ok');
    for (const status of statuses) expect(['ok', 'aborted']).toContain(status);

    // Each upstream saw the trace context of its own attempt; a leg cut off before its request went out (still
    // waiting for a connection on a loaded host) never reached its upstream.
    const proxyOf = (span: ReceivedSpan) => (span.attributes['rpcgw.upstream'] === 'a' ? a : b);
    for (const attempt of attempts) {
      const seen = proxyOf(attempt).headerValues('traceparent').filter((v) => v.includes(TRACE_ID));
      const expected = [`00-${TRACE_ID}-${attempt.spanId}-01`];
      if (attempt.attributes['rpcgw.upstream.status'] === 'ok') expect(seen).toEqual(expected);
      else expect([[], expected]).toContainEqual(seen);
    }

    // The call's log line carries its trace and span ids.
    await until(() => gw.entries.some((e) => e.msg === 'rpc call' && e.trace_id === TRACE_ID), 'the request log line with the trace id');
    expect(gw.entries.find((e) => e.msg === 'rpc call' && e.trace_id === TRACE_ID)).toMatchObject({ span_id: call.spanId });
  });

  it('makes the members of a batch child spans of the batch span', async () => {
    const traceId = 'a'.repeat(32);
    const answers = (await rpc(
      gw.evmUrl,
      [
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 3, method: 'no_such_method', params: [] },
      ],
      `00-${traceId}-${CLIENT_SPAN}-01`,
    )) as unknown[];
    expect(answers).toHaveLength(3);
    await until(() => ofTrace(traceId).filter((s) => s.kind !== 3).length >= 4, 'the batch span and its three members', 30_000);
    const spans = ofTrace(traceId);
    const batch = spans.find((s) => s.name === 'batch')!;
    expect(batch).toMatchObject({ parentSpanId: CLIENT_SPAN, kind: 2, attributes: { 'rpcgw.batch.size': 3 } });
    const members = spans.filter((s) => s.parentSpanId === batch.spanId);
    expect(members.map((s) => s.name).sort()).toEqual(['_OTHER', 'eth_blockNumber', 'eth_chainId']);
    expect(members.every((s) => s.kind === 1)).toBe(true);
    expect(members.find((s) => s.name === '_OTHER')).toMatchObject({ attributes: { 'rpcgw.outcome': 'error', 'rpc.jsonrpc.error_code': -32601 } });
  });

  it('starts a new trace for a call without traceparent', async () => {
    const before = collector.spans.length;
    await rpc(gw.evmUrl, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    await until(() => collector.spans.slice(before).some((s) => s.name === 'eth_chainId' && s.parentSpanId === ''), 'a root span of the call');
    const root = collector.spans.slice(before).find((s: ReceivedSpan) => s.name === 'eth_chainId' && s.parentSpanId === '')!;
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.traceId).not.toBe(TRACE_ID);
  });
});
