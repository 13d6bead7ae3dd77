/**
 * Compression over real sockets, on both interfaces: gzip answers decode to exactly the bytes sent to a
 * client that does not accept gzip; small answers are never compressed; gzip request bodies are read
 * within the body limit measured after inflation (a gzip bomb gets the size error); WebSocket
 * permessage-deflate only where it is turned on. Real clients (ethers, viem, CosmJS, cast) read compressed
 * answers as they read plain ones, over the embedded devnet and in upstream mode.
 */
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { createPublicClient, http } from 'viem';
import { execFile } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { evmRpcFlags } from '../support/backends';
import { startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { startUpstreamGateway } from '../support/upstream';
import { testProvider } from '../support/ethers-provider';

const CAST_BIN = join(__dirname, '..', '..', 'node_modules', '@foundry-rs', `cast-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`, 'bin', 'cast');

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request on its own connection; the body as it came off the wire (not decoded). */
function raw(url: string, options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + (options.path ?? '/'), { method: options.method ?? 'POST', agent: false, headers: { 'Content-Type': 'application/json', ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const GZIP = { 'Accept-Encoding': 'gzip' };
const rpc = (method: string, params: unknown, id: number = 1) => ({ jsonrpc: '2.0', id, method, params });
const evmBlocks = JSON.stringify(Array.from({ length: 8 }, (_, i) => rpc('eth_getBlockByNumber', [`0x${i.toString(16)}`, true], i)));
const nodeBlocks = JSON.stringify(Array.from({ length: 4 }, (_, i) => rpc('block', { height: String(i + 1) }, i)));

/** A body of well-formed JSON that inflates to `bytes` (JSON whitespace), from a few KiB of gzip. */
function bomb(bytes: number): Buffer {
  return gzipSync(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]'), Buffer.alloc(bytes, ' '), Buffer.from('}')]), { level: 9 });
}

function openWs(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: true });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function wsCall(ws: WebSocket, text: string): Promise<unknown> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(String(data))));
    ws.send(text);
  });
}

describe('compression', () => {
  let devnet: TestGateway;
  let upstream: TestGateway;

  beforeAll(async () => {
    // The devnet compresses every answer of 200 bytes or more, so real clients' answers are compressed.
    devnet = await startTestGateway({ ...evmRpcFlags('eth,net,web3'), 'compression.min_bytes': '200', 'compression.ws_permessage_deflate': 'true' });
    await waitForHeight(devnet.url, 8);
    upstream = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], {
      evm: [{ name: 'devnet', url: devnet.evmHttpUrl!, ws: devnet.evmWsUrl! }],
      settings: { health_check_interval: '1s' },
      flags: { ...evmRpcFlags('eth,net,web3'), 'compression.min_bytes': '200' },
    });
  }, 90_000);

  afterAll(async () => {
    await upstream?.close();
    await devnet?.close();
  });

  const gateways = (): [string, TestGateway][] => [
    ['the embedded devnet', devnet],
    ['upstream mode', upstream],
  ];

  describe.each([0, 1])('answers (gateway %#)', (which) => {
    const gw = () => gateways()[which][1];

    it('gzips a large EVM answer to exactly the plain bytes, with Vary', async () => {
      const plain = await raw(gw().evmHttpUrl!, { body: evmBlocks });
      const zipped = await raw(gw().evmHttpUrl!, { body: evmBlocks, headers: GZIP });
      expect(plain.headers['content-encoding']).toBeUndefined();
      // The EVM RPC's CORS varies by Origin too.
      expect(plain.headers.vary).toBe('Origin, Accept-Encoding');
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toBe('Origin, Accept-Encoding');
      expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
      expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
      expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    });

    it('gzips large node RPC answers (JSON-RPC and URI) to exactly the plain bytes', async () => {
      for (const options of [{ body: nodeBlocks }, { method: 'GET', path: '/block?height=3' }]) {
        const plain = await raw(gw().url, options);
        const zipped = await raw(gw().url, { ...options, headers: { 'Accept-Encoding': 'br, gzip;q=0.5, deflate' } });
        expect(zipped.headers['content-encoding']).toBe('gzip');
        expect(zipped.headers.vary).toBe('Accept-Encoding');
        expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
      }
    });

    it('never compresses a small answer, nor for a client that refuses gzip', async () => {
      const small = await raw(gw().evmHttpUrl!, { body: JSON.stringify(rpc('eth_chainId', [])), headers: GZIP });
      expect(small.headers['content-encoding']).toBeUndefined();
      expect(small.headers.vary).toBe('Origin');
      expect(JSON.parse(String(small.body)).result).toBe('0x2328');
      const refused = await raw(gw().evmHttpUrl!, { body: evmBlocks, headers: { 'Accept-Encoding': 'gzip;q=0, *' } });
      expect(refused.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(String(refused.body))).toHaveLength(8);
    });
  });

  describe('request bodies', () => {
    it('reads a gzip body on both interfaces', async () => {
      const evm = await raw(devnet.evmHttpUrl!, { body: gzipSync(JSON.stringify(rpc('eth_chainId', []))), headers: { 'Content-Encoding': 'gzip' } });
      expect(JSON.parse(String(evm.body)).result).toBe('0x2328');
      const node = await raw(devnet.url, { body: gzipSync(JSON.stringify(rpc('health', {}))), headers: { 'Content-Encoding': 'gzip' } });
      expect(JSON.parse(String(node.body))).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    });

    it('refuses a gzip bomb with the size error, measured after inflation', async () => {
      const evmBomb = bomb(6 * 1024 * 1024);
      expect(evmBomb.length).toBeLessThan(64 * 1024);
      const evm = await raw(devnet.evmHttpUrl!, { body: evmBomb, headers: { 'Content-Encoding': 'gzip' } });
      expect(evm.status).toBe(413);
      expect(String(evm.body)).toBe(`content length too large (>${5 * 1024 * 1024})\n`);
      const node = await raw(devnet.url, { body: bomb(2_000_000), headers: { 'Content-Encoding': 'gzip' } });
      expect(node.status).toBe(400);
      expect(JSON.parse(String(node.body)).error).toMatchObject({ code: -32600, data: 'error reading request body: http: request body too large' });
      // The gateway is still there.
      expect(JSON.parse(String((await raw(devnet.evmHttpUrl!, { body: JSON.stringify(rpc('eth_chainId', [])) })).body)).result).toBe('0x2328');
    });

    it('refuses a body that is not gzip, and an encoding it does not read', async () => {
      const broken = await raw(devnet.evmHttpUrl!, { body: 'not gzip at all', headers: { 'Content-Encoding': 'gzip' } });
      expect(broken.status).toBe(400);
      expect(String(broken.body)).toMatch(/^invalid gzip body: /);
      const node = await raw(devnet.url, { body: 'not gzip at all', headers: { 'Content-Encoding': 'gzip' } });
      expect(node.status).toBe(400);
      expect(JSON.parse(String(node.body)).error.data).toMatch(/^error reading request body: invalid gzip body: /);
      const br = await raw(devnet.evmHttpUrl!, { body: '{}', headers: { 'Content-Encoding': 'br' } });
      expect(br.status).toBe(415);
      expect(String(br.body)).toBe('unsupported Content-Encoding br\n');
    });
  });

  describe('WebSocket permessage-deflate', () => {
    it('is negotiated where turned on, and the answers are the same', async () => {
      const ws = await openWs(devnet.evmWsUrl!);
      try {
        expect(ws.extensions).toMatch(/^permessage-deflate/);
        const plain = JSON.parse(String((await raw(devnet.evmHttpUrl!, { body: evmBlocks })).body));
        expect(await wsCall(ws, evmBlocks)).toEqual(plain);
      } finally {
        ws.close();
      }
    });

    it('is off by default', async () => {
      for (const url of [upstream.evmWsUrl!, upstream.wsUrl]) {
        const ws = await openWs(url);
        expect(ws.extensions).toBe('');
        ws.close();
      }
    });
  });

  describe.each([0, 1])('real clients (gateway %#)', (which) => {
    const gw = () => gateways()[which][1];

    it('ethers reads compressed answers (a batch of full blocks)', async () => {
      const provider = testProvider(gw().evmHttpUrl!);
      try {
        const blocks = await Promise.all([1, 2, 3, 4].map((n) => provider.getBlock(n, true)));
        expect(blocks.map((b) => b?.number)).toEqual([1, 2, 3, 4]);
      } finally {
        provider.destroy();
      }
    });

    it('viem reads compressed answers (a batch of full blocks)', async () => {
      const client = createPublicClient({ transport: http(gw().evmHttpUrl, { batch: true }) });
      const blocks = await Promise.all([1n, 2n, 3n, 4n].map((blockNumber) => client.getBlock({ blockNumber, includeTransactions: true })));
      expect(blocks.map((b) => b.number)).toEqual([1n, 2n, 3n, 4n]);
    });

    it('CosmJS reads compressed answers', async () => {
      const client = await Comet38Client.connect(gw().url);
      try {
        const chain = await client.blockchain(1, 8);
        expect(chain.blockMetas.map((m) => m.header.height)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
        expect((await client.block(3)).block.header.height).toBe(3);
      } finally {
        client.disconnect();
      }
    });

    it('cast reads compressed answers', async () => {
      const { stdout } = await promisify(execFile)(CAST_BIN, ['block', '2', '--json', '--rpc-url', gw().evmHttpUrl!]);
      expect(JSON.parse(stdout).number).toBe('0x2');
    });
  });
});
