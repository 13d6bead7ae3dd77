/**
 * A client's answer passes through an upstream-mode gateway as the EVM node wrote it: a result that no
 * hook of its method reads is never parsed, so its bytes (spacing, escapes, number forms) reach the
 * client over a real socket untouched; a method whose definition reads the answer still gets its value,
 * and an answer that states another chain is still caught. The same for a node RPC upstream (an
 * embedded devnet): a large answer by URI, JSON-RPC and batch.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import WebSocket from 'ws';
import { UpstreamPools } from '../../src/backends/upstream/upstream.module';
import { evmRpcFlags } from '../support/backends';
import { call, startTestGateway, type TestGateway } from '../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';
import { nginxBinary, startNginx, startTcpRoundRobin, type Balancer } from '../support/balancers';

const HASH = `0x${'ab'.repeat(32)}`;
/** A block of about 200 KB, in many reads, with characters of two and three UTF-8 bytes in it. */
const LARGE_BLOCK = `{"number":"0x6","extraData":"caf\u00e9 — é€",\n "transactions": [${Array.from({ length: 1500 }, (_, i) => `{"hash":"0x${i.toString(16).padStart(64, '0')}","input":"€é0x${'00'.repeat(20)}"}`).join(', ')}]}`;

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Results written as no JSON serialiser writes them: spaces, a unicode escape, an exponent. */
const RESULTS: Record<string, string> = {
  eth_chainId: '"0x2329"',
  eth_blockNumber: '"0x64"',
  eth_syncing: 'false',
  eth_getBlockTransactionCountByNumber: '"0x0"',
  eth_getBalance: '"\\u0030x10"',
  eth_getBlockByNumber: `{ "number" : "0x5" , "hash":"${HASH}", "transactions" : [ ], "size": 1E2 }`,
  eth_getTransactionReceipt: `{"transactionHash":"${HASH}", "blockHash":"${HASH}", "blockNumber":"0x5", "logs":[ ]}`,
  eth_getBlockByHash: LARGE_BLOCK,
};

describe('an upstream answer passed through unread', () => {
  let node: Server;
  let gw: UpstreamGateway;
  let url: string;
  /** What the node answers net_version (the chain id in decimal, as Evmos writes it). */
  let netVersion = '"9001"';
  /** Calls the node received, by method. */
  const calls = new Map<string, number>();

  const request = (method: string, params: unknown[], encoding?: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(encoding ? { 'accept-encoding': encoding } : {}) }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  const post = async (method: string, params: unknown[]) => (await request(method, params)).text();

  beforeAll(async () => {
    node = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let call: { id: number; method: string };
        try {
          call = JSON.parse(Buffer.concat(chunks).toString());
        } catch {
          return res.writeHead(400).end();
        }
        calls.set(call.method, (calls.get(call.method) ?? 0) + 1);
        const result = call.method === 'net_version' ? netVersion : RESULTS[call.method];
        const body = result === undefined ? `{"jsonrpc":"2.0","id":${call.id},"error":{"code":-32601,"message":"the method ${call.method} does not exist/is not available"}}` : `{"jsonrpc":"2.0","id":${call.id},"result":${result}}`;
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
    const { port } = node.address() as { port: number };
    gw = await startUpstreamGateway([], { evm: [{ name: 'node', url: `http://127.0.0.1:${port}` }], flags: evmRpcFlags('eth,net') });
    url = gw.evmHttpUrl!;
  });

  afterAll(async () => {
    await gw.close();
    await new Promise((r) => node.close(r));
  });

  it('hands a string result on as the node wrote it', async () => {
    expect(await post('eth_getBalance', [`0x${'01'.repeat(20)}`, 'latest'])).toBe(`{"jsonrpc":"2.0","id":7,"result":${RESULTS.eth_getBalance}}\n`);
  });

  it('hands an object result on as the node wrote it, from the node and then from the cache', async () => {
    const expected = `{"jsonrpc":"2.0","id":7,"result":${RESULTS.eth_getBlockByNumber}}\n`;
    expect(await post('eth_getBlockByNumber', ['0x5', false])).toBe(expected);
    expect(await post('eth_getBlockByNumber', ['0x5', false])).toBe(expected);
    expect(gw.app.get(UpstreamPools).evm.cache.hits).toBeGreaterThan(0);
  });

  it('hands a large result on as the bytes the node wrote, plain and gzipped', async () => {
    const expected = Buffer.from(`{"jsonrpc":"2.0","id":7,"result":${LARGE_BLOCK}}\n`);
    expect(expected.length).toBeGreaterThan(150_000);
    const plain = await request('eth_getBlockByHash', [HASH, true], 'identity');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(Number(plain.headers.get('content-length'))).toBe(expected.length);
    expect(Buffer.from(await plain.arrayBuffer()).equals(expected)).toBe(true);
    const zipped = await request('eth_getBlockByHash', [HASH, true], 'gzip');
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(Buffer.from(await zipped.arrayBuffer()).equals(expected)).toBe(true);
  });

  it('hands large results on as bytes inside a batch too, beside small answers and errors, plain and gzipped', async () => {
    const members = [
      { jsonrpc: '2.0', id: 8, method: 'eth_getBlockByHash', params: [HASH, false] },
      { jsonrpc: '2.0', id: 9, method: 'eth_getBalance', params: [`0x${'02'.repeat(20)}`, 'latest'] },
      { jsonrpc: '2.0', id: 10, method: 'eth_nope', params: [] },
      { jsonrpc: '2.0', id: 11, method: 'eth_getBlockByHash', params: [HASH, true] },
    ];
    const send = (encoding: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': encoding }, body: JSON.stringify(members) });
    const plain = await send('identity');
    const body = Buffer.from(await plain.arrayBuffer());
    expect(Number(plain.headers.get('content-length'))).toBe(body.length);
    const text = body.toString('utf8');
    expect(text.startsWith(`[{"jsonrpc":"2.0","id":8,"result":${LARGE_BLOCK}},{"jsonrpc":"2.0","id":9,"result":${RESULTS.eth_getBalance}},{"jsonrpc":"2.0","id":10,"error":`)).toBe(true);
    expect(text.endsWith(`},{"jsonrpc":"2.0","id":11,"result":${LARGE_BLOCK}}]\n`)).toBe(true);
    expect(JSON.parse(text).map((a: { id: number; error?: { code: number } }) => [a.id, a.error?.code])).toEqual([[8, undefined], [9, undefined], [10, -32601], [11, undefined]]);
    const zipped = await send('gzip');
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(Buffer.from(await zipped.arrayBuffer()).equals(body)).toBe(true);
  });

  it('hands a large result on over a WebSocket as one text frame of the bytes the node wrote', async () => {
    const ws = new WebSocket(gw.evmWsUrl!);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const frames: { data: Buffer; binary: boolean }[] = [];
    const got = new Promise<void>((resolve) => ws.on('message', (data: Buffer, binary: boolean) => frames.push({ data, binary }) === 2 && resolve()));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'eth_getBlockByHash', params: [HASH, true] }));
    ws.send(JSON.stringify([{ jsonrpc: '2.0', id: 13, method: 'eth_getBlockByHash', params: [HASH, false] }]));
    await got;
    ws.close();
    expect(frames.map((f) => f.binary)).toEqual([false, false]);
    expect(frames[0].data.equals(Buffer.from(`{"jsonrpc":"2.0","id":12,"result":${LARGE_BLOCK}}`))).toBe(true);
    expect(frames[1].data.equals(Buffer.from(`[{"jsonrpc":"2.0","id":13,"result":${LARGE_BLOCK}}]`))).toBe(true);
  });

  /**
   * Writes `count` reads of large answers on one connection to `target` and does not read: how many
   * reached the node meanwhile; then reads, and checks that every answer arrives whole, in order.
   * `tag`: 8 hex digits that make its block hashes its own (no read is joined or cached).
   */
  async function pipelineUnread(target: string, tag: string): Promise<number> {
    const count = 300;
    const before = calls.get('eth_getBlockByHash') ?? 0;
    const { hostname, port } = new URL(target);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    let requests = '';
    for (let i = 0; i < count; i++) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_getBlockByHash', params: [`0x${tag}${i.toString(16).padStart(56, '0')}`, true] });
      requests += `POST / HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nAccept-Encoding: identity\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    }
    socket.write(requests);
    await new Promise((r) => setTimeout(r, 1_500));
    const asked = (calls.get('eth_getBlockByHash') ?? 0) - before;
    // Another client is served meanwhile.
    expect(await post('eth_getBalance', [`0x${'03'.repeat(20)}`, 'latest'])).toBe(`{"jsonrpc":"2.0","id":7,"result":${RESULTS.eth_getBalance}}\n`);
    // Read at last, every answer arrives whole, in order.
    const expected = Buffer.from(`{"jsonrpc":"2.0","id":${count - 1},"result":${LARGE_BLOCK}}\n`);
    let received = 0;
    let tail = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      tail = Buffer.concat([tail, chunk]).subarray(-expected.length);
    });
    socket.resume();
    const answerBytes = Buffer.byteLength(`{"jsonrpc":"2.0","id":0,"result":${LARGE_BLOCK}}\n`);
    await until(() => tail.equals(expected), 'the last answer');
    socket.destroy();
    expect(received).toBeGreaterThan(count * answerBytes);
    expect((calls.get('eth_getBlockByHash') ?? 0) - before).toBe(count);
    return asked;
  }

  it('holds back a client that pipelines reads of large answers and never reads them, then answers every one', async () => {
    const asked = await pipelineUnread(url, 'e'.repeat(8));
    // The gateway stopped reading the connection once its answers were not read: most requests never reached the node.
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(150);
  });

  it('holds back such a client behind a balancer too (a TCP round robin; nginx where installed), over two replicas', async () => {
    const { port } = node.address() as { port: number };
    const second = await startUpstreamGateway([], { evm: [{ name: 'node', url: `http://127.0.0.1:${port}` }], flags: evmRpcFlags('eth,net') });
    const balancers: Balancer[] = [];
    try {
      const replicas = [url, second.evmHttpUrl!];
      balancers.push(await startTcpRoundRobin(replicas));
      const nginx = nginxBinary();
      if (nginx) balancers.push(await startNginx(nginx, replicas));
      for (const [i, balancer] of balancers.entries()) {
        const asked = await pipelineUnread(balancer.url, `f${i}`.padEnd(8, 'f'));
        expect({ balancer: balancer.kind, held: asked > 0 && asked < 150 }).toEqual({ balancer: balancer.kind, held: true });
      }
    } finally {
      await Promise.all(balancers.map((b) => b.close()));
      await second.close();
    }
  });

  it('answers a method whose definition reads the answer (a receipt shows its block) with the same bytes', async () => {
    expect(await post('eth_getTransactionReceipt', [HASH])).toBe(`{"jsonrpc":"2.0","id":7,"result":${RESULTS.eth_getTransactionReceipt}}\n`);
  });

  it('still refuses an answer that states another chain than the pool serves', async () => {
    netVersion = '"1"';
    const answer = JSON.parse(await post('net_version', []));
    expect(answer.result).toBeUndefined();
    expect(answer.error.message).toMatch(/answered for chain 1, the pool serves 9001|no healthy EVM upstream/);
  });
});


describe('a large node RPC answer passed through unread', () => {
  let devnet: TestGateway;
  let gw: UpstreamGateway;
  const key = `big-${Date.now()}`;
  /** The height the value was committed at: the answers at it never change (the latest height's would). */
  let height: string;

  beforeAll(async () => {
    devnet = await startTestGateway({ 'devnet.block_time': '200ms' });
    // A kvstore value of 30 KB: its abci_query answer is well past the 8 KiB kept as text.
    const tx = Buffer.from(`${key}=${'v'.repeat(30_000)}`).toString('base64');
    const committed = await call(devnet.url, 'broadcast_tx_commit', { tx });
    expect(committed.tx_result.code).toBe(0);
    height = committed.height;
    gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }]);
  });

  afterAll(async () => {
    await gw?.close();
    await devnet?.close();
  });

  const bytes = async (url: string, init?: RequestInit) => {
    const res = await fetch(url, { ...init, headers: { 'accept-encoding': 'identity', ...init?.headers } });
    const body = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    return body;
  };

  it('answers a URI call, a JSON-RPC call and a batch with the bytes the node writes, from the node and from the cache', async () => {
    const query = `path="/key"&data=0x${Buffer.from(key).toString('hex')}&height=${height}`;
    const direct = await bytes(`${devnet.url}/abci_query?${query}`);
    expect(direct.length).toBeGreaterThan(40_000);
    expect(await bytes(`${gw.url}/abci_query?${query}`)).toEqual(direct);
    const body = (id: number) => ({ jsonrpc: '2.0', id, method: 'abci_query', params: { path: '/key', data: Buffer.from(key).toString('hex'), height } });
    const viaPost = (url: string, b: unknown) => bytes(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
    expect(await viaPost(gw.url, body(5))).toEqual(await viaPost(devnet.url, body(5)));
    const batch = [body(6), body(7)];
    const batched = await viaPost(gw.url, batch);
    expect(batched).toEqual(await viaPost(devnet.url, batch));
    expect(JSON.parse(batched.toString()).map((a: { result: { response: { value: string } } }) => Buffer.from(a.result.response.value, 'base64').length)).toEqual([30_000, 30_000]);
    expect(gw.backend.pool.cache.hits).toBeGreaterThan(0);
  });
});
