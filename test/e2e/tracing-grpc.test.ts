/**
 * Tracing switched on by `[instrumentation]` keys, exporting OTLP over gRPC, on an embedded-devnet
 * gateway process: with a batch delay far longer than the test, the spans reach the collector only
 * because a shutdown flushes them: the node RPC calls (JSON-RPC and URI) under the clients' trace ids,
 * the delivery of a queued tx, and the devnet's blocks. A gateway whose collector is unreachable answers as usual and stops.
 */
import { createServer } from 'node:net';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process';
import { OtlpGrpcReceiver } from '../support/otlp-receiver';

jest.setTimeout(120_000);

const CLIENT_SPAN = '00f067aa0ba902b7';

async function post(url: string, method: string, traceId: string, params: Record<string, string> = {}): Promise<{ result?: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${CLIENT_SPAN}-01` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown };
}

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('tracing on by [instrumentation] keys, OTLP over gRPC', () => {
  let collector: OtlpGrpcReceiver;
  let gw: GatewayProcess | undefined;

  beforeAll(async () => {
    collector = await new OtlpGrpcReceiver().start();
  });

  afterAll(async () => {
    await gw?.close();
    await collector?.close();
  });

  it('exports the calls and the devnet blocks on shutdown', async () => {
    gw = await startGatewayProcess(
      { 'instrumentation.otlp_traces_endpoint': collector.url, 'instrumentation.otlp_protocol': 'grpc', 'instrumentation.trace_service_name': 'gw-under-test' },
      60_000,
      { OTEL_BSP_SCHEDULE_DELAY: '600000' },
    );
    const jsonRpcTrace = '1'.repeat(32);
    const uriTrace = '2'.repeat(32);
    expect((await post(gw.url, 'status', jsonRpcTrace)).result).toBeDefined();
    const uri = await fetch(`${gw.url}/health`, { headers: { traceparent: `00-${uriTrace}-${CLIENT_SPAN}-01` } });
    expect(uri.status).toBe(200);
    const tx = Buffer.from('traced=yes').toString('base64');
    expect((await post(gw.url, 'broadcast_tx_sync', '3'.repeat(32), { tx })).result).toMatchObject({ code: 0 });
    expect(collector.messages).toHaveLength(0);

    await gw.close();
    gw = undefined;
    for (const traceId of [jsonRpcTrace, uriTrace]) expect(collector.holds(Buffer.from(traceId, 'hex'))).toBe(true);
    for (const text of ['gw-under-test', 'status', 'health', 'devnet.block', 'rpcgw.devnet.height', 'queue.deliver', 'accepted']) expect(collector.holds(Buffer.from(text))).toBe(true);
  });

  it('answers as usual while the collector is unreachable, and stops', async () => {
    gw = await startGatewayProcess({ 'instrumentation.otlp_traces_endpoint': `http://127.0.0.1:${await closedPort()}/v1/traces` }, 60_000, { OTEL_BSP_SCHEDULE_DELAY: '50' });
    for (let i = 0; i < 20; i++) expect((await post(gw.url, 'health', 'f'.repeat(31) + (i % 10).toString())).result).toEqual({});
    await gw.close();
    gw = undefined;
  });
});
