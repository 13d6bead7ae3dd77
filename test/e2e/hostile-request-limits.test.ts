/**
 * Limits that answer reliably, over real sockets (issue 24, findings 8 and 9): a body nested 100,000
 * deep is a parse error on both interfaces, over HTTP and WebSocket, and the gateway goes on serving; a
 * body over the size limit gets its error through undici's fetch (the client is done sending when the
 * answer comes), sent whole or streamed in chunks.
 */
import { connect } from 'node:net';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';

jest.setTimeout(60_000);

interface JsonRpcAnswer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error: { readonly code: number; readonly message: string; readonly data?: string };
}

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0', 'devnet.block_time': '1h' });
});
afterAll(() => gw?.close());

const DEPTH = 100_000;
const deepParams = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const deepCall = (method: string) => `{"jsonrpc":"2.0","id":7,"method":"${method}","params":${deepParams}}`;

async function postText(url: string, body: string | ReadableStream<Uint8Array>): Promise<{ status: number; json: JsonRpcAnswer }> {
  const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body };
  if (typeof body !== 'string') init.duplex = 'half';
  const res = await fetch(url, init);
  return { status: res.status, json: JSON.parse(await res.text()) as JsonRpcAnswer };
}

/**
 * A body of `total` bytes sent in 64 KiB chunks with no declared length, a turn of the event loop
 * between chunks: the client is still sending long after the limit has passed.
 */
function chunked(total: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent >= total) return controller.close();
      await new Promise((resolve) => setImmediate(resolve));
      controller.enqueue(chunk);
      sent += chunk.length;
    },
  });
}

/**
 * Writes a request with a `size`-byte body on a raw connection; resolves with whether every byte was
 * written without an error, and with what the server sent before it closed.
 */
function rawPost(url: string, size: number): Promise<{ writeError: string | undefined; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let writeError: string | undefined;
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
      socket.write(Buffer.alloc(size, 0x20), (err) => (writeError = err?.message ?? writeError));
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err) => (writeError = err.message));
    socket.once('close', () => resolve({ writeError, text: Buffer.concat(chunks).toString('utf8') }));
  });
}

describe('nesting depth is limited at parse time', () => {
  it('node RPC over HTTP: a parse error, then the gateway serves the next call', async () => {
    const { status, json } = await postText(gw.url, deepCall('block'));
    expect(status).toBe(500);
    expect(json.error).toEqual({ code: -32700, message: 'Parse error. Invalid JSON', data: 'error unmarshaling request: exceeded max depth (1000)' });
    expect((await postText(gw.url, '{"jsonrpc":"2.0","id":1,"method":"health"}')).json.result).toEqual({});
  });

  it('node RPC over WebSocket: a parse error on the open socket', async () => {
    const ws = await PipelineSocket.connect(gw.wsUrl);
    ws.pipeline([deepCall('block'), { jsonrpc: '2.0', id: 2, method: 'health' }]);
    const [deep, health] = await ws.collect(2);
    expect(deep.error.code).toBe(-32700);
    expect(health).toMatchObject({ id: 2, result: {} });
    await ws.close();
  });

  it('EVM RPC over HTTP and WebSocket: a parse error', async () => {
    const { status, json } = await postText(gw.evmHttpUrl!, deepCall('eth_call'));
    expect(status).toBe(200);
    expect(json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    const ws = await PipelineSocket.connect(gw.evmWsUrl!);
    ws.pipeline([deepCall('eth_call'), { jsonrpc: '2.0', id: 2, method: 'eth_chainId' }]);
    const [deep, chainId] = await ws.collect(2);
    expect(deep.error.code).toBe(-32700);
    expect(chainId.id).toBe(2);
    await ws.close();
  });
});

describe('a body over the limit gets its error', () => {
  const TOO_LARGE = { code: -32600, message: 'Invalid Request', data: 'error reading request body: http: request body too large' };

  it('node RPC: a 12 MB body, with its length declared', async () => {
    const { status, json } = await postText(gw.url, ' '.repeat(12 * 1024 * 1024));
    expect(status).toBe(400);
    expect(json.error).toEqual(TOO_LARGE);
  });

  it('node RPC: the client writes all 12 MB without a reset, then reads the 400 before the connection closes', async () => {
    const { writeError, text } = await rawPost(gw.url, 12 * 1024 * 1024);
    expect(writeError).toBeUndefined();
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('"data":"error reading request body: http: request body too large"');
  });

  it('node RPC: a 12 MB body streamed in chunks', async () => {
    const { status, json } = await postText(gw.url, chunked(12 * 1024 * 1024));
    expect(status).toBe(400);
    expect(json.error).toEqual(TOO_LARGE);
  });

  it('EVM RPC: a 12 MB body streamed in chunks is 413', async () => {
    const res = await fetch(gw.evmHttpUrl!, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: chunked(12 * 1024 * 1024), duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.text()).toBe(`content length too large (>${5 * 1024 * 1024})\n`);
  });
});
