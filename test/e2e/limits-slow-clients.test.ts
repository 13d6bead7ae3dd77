/**
 * Slow and oversized clients, over real sockets: the node RPC listener cuts a client that trickles its
 * headers (slowloris), one that never finishes its body, and an idle keep-alive connection
 * (`[limits] rpc_header_timeout`, `rpc_read_timeout`, `rpc_idle_timeout`); WebSocket messages over the
 * size cap close the connection with 1009, whether sent in one frame or in fragments.
 */
import { connect, type Socket } from 'node:net';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';

jest.setTimeout(60_000);

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    'limits.rpc_header_timeout': '600ms',
    'limits.rpc_read_timeout': '1s',
    'limits.rpc_idle_timeout': '400ms',
    'rpc.max_body_bytes': '2000',
    'json-rpc.enable': 'true',
    'json-rpc.address': '127.0.0.1:0',
    'json-rpc.ws-address': '127.0.0.1:0',
    'devnet.block_time': '1h',
  });
});
afterAll(() => gw?.close());

/** A raw TCP connection to the node RPC; resolves `closed` with what the server wrote and when it hung up. */
function rawConnection(): Promise<{ socket: Socket; closed: Promise<{ text: string; afterMs: number }> }> {
  const { hostname, port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const started = Date.now();
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      const closed = new Promise<{ text: string; afterMs: number }>((done) => socket.once('close', () => done({ text: Buffer.concat(chunks).toString('utf8'), afterMs: Date.now() - started })));
      resolve({ socket, closed });
    });
    socket.once('error', reject);
    socket.on('error', () => undefined);
  });
}

describe('node RPC listener timeouts', () => {
  it('slowloris: headers trickled a line at a time are cut after rpc_header_timeout', async () => {
    const { socket, closed } = await rawConnection();
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n');
    const drip = setInterval(() => socket.writable && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 150);
    const { text, afterMs } = await closed;
    clearInterval(drip);
    expect(afterMs).toBeGreaterThanOrEqual(500);
    expect(afterMs).toBeLessThan(3_000);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
  });

  it('a connection that sends nothing is cut too', async () => {
    const { closed } = await rawConnection();
    const { afterMs } = await closed;
    expect(afterMs).toBeLessThan(3_000);
  });

  it('a body that never arrives in full is cut after rpc_read_timeout', async () => {
    const { socket, closed } = await rawConnection();
    socket.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":');
    const { text, afterMs } = await closed;
    expect(afterMs).toBeGreaterThanOrEqual(900);
    expect(afterMs).toBeLessThan(4_000);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
  });

  it('an idle keep-alive connection is closed after rpc_idle_timeout, once answered', async () => {
    const { socket, closed } = await rawConnection();
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const { text, afterMs } = await closed;
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toContain('"result":{}');
    expect(afterMs).toBeGreaterThanOrEqual(350);
    expect(afterMs).toBeLessThan(3_000);
  });

  it('a client that keeps its requests coming is served', async () => {
    const { socket, closed } = await rawConnection();
    for (let i = 0; i < 3; i++) {
      socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await new Promise((r) => setTimeout(r, 250));
    }
    socket.end();
    const { text } = await closed;
    expect(text.match(/HTTP\/1\.1 200/g)).toHaveLength(3);
  });
});

describe('WebSocket message size caps', () => {
  it('node RPC: a message over max_body_bytes closes the socket with 1009; one under it is answered', async () => {
    const ws = await PipelineSocket.connect(gw.wsUrl);
    ws.pipeline([{ jsonrpc: '2.0', id: 1, method: 'health', params: {}, pad: 'x'.repeat(1500) }]);
    expect((await ws.collect(1))[0].result).toEqual({});
    ws.pipeline([{ jsonrpc: '2.0', id: 2, method: 'health', params: {}, pad: 'x'.repeat(2500) }]);
    expect(await ws.closed()).toBe(1009);
  });

  it('node RPC: the cap holds for a message sent in fragments of allowed sizes', async () => {
    const ws = await PipelineSocket.connect(gw.wsUrl);
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health', params: {}, pad: 'y'.repeat(2600) });
    const third = Math.ceil(text.length / 3);
    ws.socket.send(text.slice(0, third), { fin: false });
    ws.socket.send(text.slice(third, 2 * third), { fin: false });
    ws.socket.send(text.slice(2 * third), { fin: true });
    expect(await ws.closed()).toBe(1009);
  });

  it('EVM RPC: a message over 1 MiB closes the socket with 1009', async () => {
    const ws = await PipelineSocket.connect(gw.evmWsUrl!);
    ws.pipeline([{ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [], pad: 'z'.repeat(1024 * 1024) }]);
    expect(await ws.closed()).toBe(1009);
  });
});
