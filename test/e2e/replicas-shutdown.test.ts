/**
 * A replica leaving on SIGTERM (`rpc-gateway start` as a process of its own, upstream mode over an
 * embedded devnet reached through a proxy that holds one kind of call): a call in flight when the signal
 * comes is answered, new connections are refused at once, every WebSocket (EVM and node) is closed with
 * 1001 (going away) so that its client reconnects elsewhere, and the process exits 0.
 */
import { createServer, type Server } from 'node:http';
import WebSocket from 'ws';
import { evmRpcFlags } from '../support/backends';
import { startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';
import { startUpstreamGatewayProcess, upstreamToml, type UpstreamGatewayProcess } from '../support/upstream';

jest.setTimeout(120_000);

/** Long enough that the call is still held when SIGTERM arrives, well under the 10 s drain bound. */
const HOLD_MS = 3_000;

/** An HTTP proxy to `target` that holds each `eth_getBalance` call for HOLD_MS (health checks pass at once). */
async function holdingProxy(target: string): Promise<{ url: string; server: Server; held: () => number }> {
  let held = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const hold = body.includes('"eth_getBalance"');
      if (hold) held++;
      setTimeout(() => {
        fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          .then(async (answer) => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer())))
          .catch(() => res.destroy());
      }, hold ? HOLD_MS : 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, held: () => held };
}

function closeCode(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.once('close', (code) => resolve(code)));
}

async function opened(url: string): Promise<WebSocket> {
  const o = await PipelineSocket.open(url);
  if (!o.ok) throw new Error(`WebSocket to ${url} refused: ${o.status} ${o.body}`);
  return o.ws.socket;
}

describe('SIGTERM: a replica leaves gracefully', () => {
  let devnet: TestGateway;
  let proxy: Awaited<ReturnType<typeof holdingProxy>>;
  let replica: UpstreamGatewayProcess;

  beforeAll(async () => {
    devnet = await startTestGateway({ ...evmRpcFlags('eth,net,web3'), 'devnet.block_time': '300ms' });
    await waitForHeight(devnet.url, 1);
    proxy = await holdingProxy(devnet.evmHttpUrl!);
    const toml = upstreamToml([{ name: 'devnet', url: devnet.url }], { health_check_interval: '200ms' }, [{ name: 'devnet', url: proxy.url }]);
    replica = await startUpstreamGatewayProcess(toml);
  });

  afterAll(async () => {
    await replica?.close();
    proxy?.server.closeAllConnections();
    await new Promise((r) => (proxy ? proxy.server.close(r) : r(undefined)));
    await devnet?.close();
  });

  it('answers the call in flight, refuses new connections, closes WebSockets with 1001 and exits 0', async () => {
    const nodeRpcUrl = replica.logs.find((m) => m.startsWith('node RPC listening on '))!.slice('node RPC listening on '.length).split(/[ ,]/)[0];
    const sockets = await Promise.all([opened(replica.evmWsUrl), opened(nodeRpcUrl.replace(/^http/, 'ws') + '/websocket')]);
    const codes = Promise.all(sockets.map(closeCode));

    const inFlight = fetch(replica.evmUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_getBalance', params: ['0x0000000000000000000000000000000000000001', 'latest'] }),
    }).then((res) => res.json() as Promise<{ id: number; result?: string; error?: unknown }>);
    // Held by the proxy: the replica is waiting on its upstream.
    while (proxy.held() === 0) await new Promise((r) => setTimeout(r, 20));

    const since = replica.logs.length;
    process.kill(replica.pid, 'SIGTERM');
    await replica.waitForLog(/^SIGTERM: draining and shutting down$/, 30_000, since);
    // The listeners are closed: a new connection is refused, whether or not the drain is still going.
    await expect(fetch(replica.evmUrl, { method: 'POST', body: '{}' })).rejects.toThrow();

    expect(await inFlight).toEqual({ jsonrpc: '2.0', id: 7, result: '0x0' });
    expect(await codes).toEqual([1001, 1001]);
    expect(await replica.exited).toBe(0);
  });
});
