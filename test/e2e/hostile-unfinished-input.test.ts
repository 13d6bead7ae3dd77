/**
 * Memory a flood of unfinished input leaves behind (issue 24, finding 7), over real sockets: many
 * connections each holding a partial 1 MB request header, or an unfinished 1 MB WebSocket message,
 * from 20 client addresses (127.0.0.2…21). Their bytes count against `[limits]
 * max_unfinished_bytes_per_ip` and `max_unfinished_bytes`: past a budget a connection is closed (431 or
 * WebSocket 1009), the gateway's memory stays bounded and it keeps answering; the bytes are given back
 * when the connections end. A WebSocket message left unfinished is closed at the read deadline, whatever
 * pongs the client sends.
 */
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { UnfinishedBytes } from '../../src/rpc/unfinished-bytes';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(180_000);

const ADDRESSES = Array.from({ length: 20 }, (_, i) => `127.0.0.${i + 2}`);
const PER_ADDRESS = 20;
const MB = 1_000_000;
const PER_IP = 8 * 1024 * 1024;
const TOTAL = 32 * 1024 * 1024;
/** What the flood would hold without a budget: 400 MB. */
const FLOOD = ADDRESSES.length * PER_ADDRESS * MB;

let gw: TestGateway;
let budget: UnfinishedBytes;

beforeAll(async () => {
  gw = await startTestGateway({
    'json-rpc.enable': 'true',
    'json-rpc.address': '127.0.0.1:0',
    'json-rpc.ws-address': '127.0.0.1:0',
    'devnet.block_time': '1h',
    'limits.max_unfinished_bytes_per_ip': String(PER_IP),
    'limits.max_unfinished_bytes': String(TOTAL),
    // Long enough that the flood is judged by the budget, not by the header deadline.
    'limits.rpc_header_timeout': '2m',
    'limits.rpc_read_timeout': '2m',
  });
  budget = gw.app.get(UnfinishedBytes);
});
afterAll(() => gw?.close());

const rss = (): number => process.memoryUsage().rss;

async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function healthy(): Promise<void> {
  expect(((await (await fetch(gw.url + '/health')).json()) as { result: unknown }).result).toEqual({});
}

/** A connection from `localAddress` that sends a request's first 1 MB of headers and never ends them. */
function partialHeader(port: number, localAddress: string, pad: Buffer): Promise<{ socket: Socket; answer: () => string; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    let answer = '';
    let closed = false;
    const socket = connect({ host: '127.0.0.1', port, localAddress }, () => {
      socket.write('POST / HTTP/1.1\r\nHost: gateway\r\nX-Pad: ');
      socket.write(pad);
      resolve({ socket, answer: () => answer, closed: () => closed });
    });
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.once('close', () => (closed = true));
    socket.once('error', reject);
  });
}

it('partial headers: the flood holds at most the budget, the gateway answers, the bytes come back at close', async () => {
  const port = Number(new URL(gw.url).port);
  const pad = Buffer.alloc(MB - 100, 'a');
  const before = rss();
  const clients = (await Promise.all(ADDRESSES.flatMap((ip) => Array.from({ length: PER_ADDRESS }, () => partialHeader(port, ip, pad))))).flat();
  // Every client is cut, or the gateway holds its whole header.
  await until(() => clients.filter((c) => c.closed()).length + Math.floor(budget.held / pad.length) >= clients.length, 'the flood to be read');
  const grown = rss() - before;
  expect(budget.held).toBeLessThanOrEqual(TOTAL);
  for (const ip of ADDRESSES) expect(budget.heldBy(ip)).toBeLessThanOrEqual(PER_IP);
  const cut = clients.filter((c) => c.closed());
  expect(cut.length).toBeGreaterThan(clients.length / 2);
  expect(cut.some((c) => c.answer().startsWith('HTTP/1.1 431 '))).toBe(true);
  // Far below the 400 MB the flood would hold without a budget.
  expect(grown).toBeLessThan(FLOOD / 2);
  await healthy();

  for (const c of clients) c.socket.destroy();
  await until(() => budget.held === 0, 'the budget to be given back');
  await healthy();
});

/** A WebSocket from `localAddress` that sends the first 1 MB fragment of a message and never its last. */
function unfinishedMessage(url: string, localAddress: string, fragment: Buffer): Promise<{ ws: WebSocket; code: () => number | undefined }> {
  return new Promise((resolve, reject) => {
    let code: number | undefined;
    const ws = new WebSocket(url, { localAddress });
    ws.once('open', () => {
      ws.send(fragment, { fin: false, binary: false });
      resolve({ ws, code: () => code });
    });
    ws.once('close', (c) => (code = c));
    ws.on('error', () => undefined);
    ws.once('error', reject);
  });
}

it('unfinished WebSocket messages: the flood holds at most the budget, the gateway answers, the bytes come back at close', async () => {
  const fragment = Buffer.alloc(MB - 100, 0x20);
  const before = rss();
  const clients = await Promise.all(ADDRESSES.flatMap((ip) => Array.from({ length: PER_ADDRESS }, () => unfinishedMessage(gw.evmWsUrl!, ip, fragment))));
  await until(() => clients.filter((c) => c.code() !== undefined).length + Math.floor(budget.held / fragment.length) >= clients.length, 'the flood to be read');
  const grown = rss() - before;
  expect(budget.held).toBeLessThanOrEqual(TOTAL);
  for (const ip of ADDRESSES) expect(budget.heldBy(ip)).toBeLessThanOrEqual(PER_IP);
  const cut = clients.filter((c) => c.code() !== undefined);
  expect(cut.length).toBeGreaterThan(clients.length / 2);
  expect(grown).toBeLessThan(FLOOD / 2);
  await healthy();

  for (const c of clients) c.ws.terminate();
  await until(() => budget.held === 0, 'the budget to be given back');
  await healthy();
});

it('a message left unfinished is closed at the read deadline, though the client answers every ping', async () => {
  // The node RPC's WebSocket: CometBFT's 27 s pings and 30 s read deadline.
  const { ws, code } = await unfinishedMessage(gw.wsUrl, '127.0.0.1', Buffer.from('{"jsonrpc":"2.0",'));
  let pongs = 0;
  ws.on('ping', () => pongs++);
  const idle = new WebSocket(gw.wsUrl);
  await new Promise((resolve) => idle.once('open', resolve));
  await until(() => code() !== undefined, 'the unfinished message to be closed', 120_000);
  expect(pongs).toBeGreaterThan(0);
  expect(code()).toBe(1008);
  // A client that sends nothing but answers pings stays.
  expect(idle.readyState).toBe(WebSocket.OPEN);
  idle.terminate();
  await until(() => budget.held === 0, 'the budget to be given back');
});
