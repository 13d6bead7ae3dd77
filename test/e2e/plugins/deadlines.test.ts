/**
 * Every call has a deadline, on every transport and in both backends: a plugin method still running at
 * it is answered the interface's timeout error over HTTP, in a batch and over WebSocket (the node RPC
 * also over URI), and its AbortSignal fires then. In upstream mode a read the plugin makes through
 * `ctx.evm` with its call's context is aborted on the wire at that deadline.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { BACKENDS, evmRpcFlags, startGatewayOver } from '../../support/backends';
import { post, startTestGateway, waitForHeight, type TestGateway } from '../../support/gateway';
import { startUpstreamGateway } from '../../support/upstream';
import { WsClient } from '../../support/ws-client';

jest.setTimeout(120_000);

const FIXTURE = join(resolve(__dirname, '../../fixtures/plugins'), 'slow.ts');
/** Deadlines of a second or so (the node RPC's is raised to check_timeout + timeout_broadcast_tx_commit + 1 s). */
const FLAGS = {
  ...evmRpcFlags('eth,slow'),
  'plugins.load': FIXTURE,
  'plugins.node_api': 'slownode',
  'json-rpc.http-timeout': '1s',
  'limits.rpc_write_timeout': '1500ms',
  'queue.check_timeout': '200ms',
  'rpc.timeout_broadcast_tx_commit': '200ms',
};
const LONG = 600_000;
const EVM_TIMED_OUT = { code: -32002, message: 'request timed out' };
const NODE_TIMED_OUT = { code: -32603, message: 'Internal error', data: 'request timed out' };

/** The answer to one call sent on `ws`. */
function answerOn(ws: WsClient, id: number, method: string, params: unknown): Promise<any> {
  ws.send({ jsonrpc: '2.0', id, method, params });
  return ws.next((m) => m.id === id);
}

describe.each(BACKENDS)('a slow plugin method, %s backend', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGatewayOver(kind, FLAGS);
  });
  afterAll(() => gw?.close());

  it('EVM: answered request timed out over HTTP, in a batch and over WebSocket; its signal fired each time', async () => {
    const ws = await WsClient.open(gw.evmWsUrl!);
    try {
      const [single, batch, overWs] = await Promise.all([
        post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method: 'slow_wait', params: [LONG] }),
        post(gw.evmHttpUrl!, [
          { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
          { jsonrpc: '2.0', id: 3, method: 'slow_wait', params: [LONG] },
        ]),
        answerOn(ws, 4, 'slow_wait', [LONG]),
      ]);
      expect(single.json).toEqual({ jsonrpc: '2.0', id: 1, error: EVM_TIMED_OUT });
      expect(batch.json[0]).toEqual({ jsonrpc: '2.0', id: 2, result: expect.stringMatching(/^0x/) });
      expect(batch.json[1]).toEqual({ jsonrpc: '2.0', id: 3, error: EVM_TIMED_OUT });
      expect(overWs).toEqual({ jsonrpc: '2.0', id: 4, error: EVM_TIMED_OUT });
      // The connection serves on after a timed-out call.
      expect((await answerOn(ws, 5, 'slow_wait', [1])).result).toBe('done');
    } finally {
      await ws.close();
    }
    const seen = (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 6, method: 'slow_seen', params: [] })).json.result;
    expect(seen.aborted).toEqual(['request timed out', 'request timed out', 'request timed out']);
  });

  it('node: answered request timed out over URI, POST, in a batch and over WebSocket; its signal fired each time', async () => {
    const ws = await WsClient.open(gw.wsUrl);
    try {
      const [uri, single, batch, overWs] = await Promise.all([
        fetch(`${gw.url}/slow_wait?ms=${LONG}`),
        post(gw.url, { jsonrpc: '2.0', id: 1, method: 'slow_wait', params: { ms: String(LONG) } }),
        post(gw.url, [
          { jsonrpc: '2.0', id: 2, method: 'health', params: {} },
          { jsonrpc: '2.0', id: 3, method: 'slow_wait', params: { ms: String(LONG) } },
        ]),
        answerOn(ws, 4, 'slow_wait', { ms: String(LONG) }),
      ]);
      expect(uri.status).toBe(500);
      expect(await uri.json()).toEqual({ jsonrpc: '2.0', id: -1, error: NODE_TIMED_OUT });
      expect(single.json).toEqual({ jsonrpc: '2.0', id: 1, error: NODE_TIMED_OUT });
      expect(batch.json).toEqual([
        { jsonrpc: '2.0', id: 2, result: {} },
        { jsonrpc: '2.0', id: 3, error: NODE_TIMED_OUT },
      ]);
      expect(overWs).toEqual({ jsonrpc: '2.0', id: 4, error: NODE_TIMED_OUT });
    } finally {
      await ws.close();
    }
    const seen = (await post(gw.url, { jsonrpc: '2.0', id: 5, method: 'slow_seen', params: {} })).json.result;
    expect(seen.aborted).toEqual(Array(4).fill('request timed out'));
  });
});

/**
 * A TCP proxy that passes everything through except requests naming `held`, which it never forwards;
 * `cut` counts the connections the client closed while such a request was held.
 */
class HoldingProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  cut = 0;
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly held: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      let holding = false;
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('close', () => {
        if (holding) this.cut++;
        upstream.destroy();
      });
      upstream.on('close', () => client.destroy());
      client.on('data', (chunk: Buffer) => {
        if (chunk.toString('latin1').includes(`"${this.held}"`)) holding = true;
        if (!holding) upstream.write(chunk);
      });
      upstream.pipe(client);
    });
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }
}

describe('upstream mode: a read made through ctx.evm with the call context', () => {
  let devnet: TestGateway;
  let proxy: HoldingProxy;
  let gw: TestGateway;

  beforeAll(async () => {
    devnet = await startTestGateway(evmRpcFlags('eth,net,web3'));
    await waitForHeight(devnet.url, 1);
    proxy = await new HoldingProxy(Number(new URL(devnet.evmHttpUrl!).port), 'eth_getBalance').start();
    gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], {
      evm: [{ name: 'devnet', url: proxy.url, ws: devnet.evmWsUrl! }],
      settings: { health_check_interval: '1s' },
      flags: FLAGS,
    });
  });
  afterAll(async () => {
    await gw?.close();
    await proxy?.close();
    await devnet?.close();
  });

  it('is aborted on the wire at the deadline: the upstream request is cut, no retry follows', async () => {
    const answer = await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method: 'slow_balance', params: [] });
    expect(answer.json).toEqual({ jsonrpc: '2.0', id: 1, error: EVM_TIMED_OUT });
    for (let i = 0; i < 100 && proxy.cut === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(proxy.cut).toBe(1);
    const seen = (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 2, method: 'slow_seen', params: [] })).json.result;
    expect(seen.readsCut).toBe(1);
  });
});
