/**
 * API keys on both interfaces and every transport: `Authorization: Bearer`, `x-api-key` or a
 * `/key/<k>` path prefix; a missing or unknown key gets HTTP 401 and a JSON-RPC error in the
 * interface's style, WebSocket upgrades included; a key's grants (namespaces, unsafe) reach every call
 * it makes; keys never reach logs or metrics. Without keys everything stays open.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startGateway, type RunningGateway } from '../../src/bootstrap';
import { loadConfig } from '../../src/config/load-config';
import { get, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';

jest.setTimeout(60_000);

const TEAM_KEY = 'team-secret-7f3a9c2e';
const PLAIN_KEY = 'plain-secret-0b1d4e6f';
const OPS_KEY = 'ops-secret-5c8e2a91';

const KEYS_TOML = `
[[keys]]
name = "team"
key = "${TEAM_KEY}"
namespaces = ["debug"]

[[keys]]
name = "plain"
key = "${PLAIN_KEY}"

[[keys]]
name = "ops"
sha256 = "${createHash('sha256').update(OPS_KEY).digest('hex')}"
unsafe = true
`;

const EVM_FLAGS = { 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0', 'json-rpc.api': 'eth,net,web3' };
const rpc = (method: string, params: unknown = {}, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

function postWith(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: any }> {
  return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (res) => ({
    status: res.status,
    headers: res.headers,
    json: await res.json(),
  }));
}

function homeWith(files: Record<string, string>): string {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-keys-'));
  mkdirSync(join(home, 'config'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(home, name), text);
  return home;
}

describe('without keys configured', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ ...EVM_FLAGS });
  });
  afterAll(() => gw?.close());

  it('everything is open, and a /key/<k> prefix is simply taken off', async () => {
    expect((await post(gw.url, rpc('health'))).json.result).toEqual({});
    expect((await get(gw.url, '/key/anything/health')).json.result).toEqual({});
    expect((await postWith(gw.evmHttpUrl!, rpc('eth_chainId', []))).json.result).toMatch(/^0x/);
    const ws = await PipelineSocket.connect(gw.wsUrl);
    await ws.close();
  });
});

describe('with a keys file (TOML)', () => {
  let gw: TestGateway;
  let home: string;

  beforeAll(async () => {
    home = homeWith({ 'keys.toml': KEYS_TOML });
    gw = await startTestGateway({ ...EVM_FLAGS, 'access.keys_file': 'keys.toml' }, home);
    await waitForHeight(gw.url, 1).catch(() => undefined);
  });
  afterAll(async () => {
    await gw?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('node RPC POST: no key is 401 with CometBFT\'s error shape; an unknown key too', async () => {
    const none = await postWith(gw.url, rpc('health'));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.json).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request', data: 'API key required' } });
    const wrong = await postWith(gw.url, rpc('health'), { Authorization: 'Bearer not-a-key-at-all' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.data).toBe('invalid API key');
  });

  it('node RPC: a key by Bearer, x-api-key or /key/<k>, over POST, batch and URI', async () => {
    expect((await postWith(gw.url, rpc('health'), { Authorization: `Bearer ${PLAIN_KEY}` })).json.result).toEqual({});
    expect((await postWith(gw.url, rpc('health'), { 'x-api-key': PLAIN_KEY })).json.result).toEqual({});
    expect((await postWith(`${gw.url}/key/${PLAIN_KEY}/`, rpc('health'))).json.result).toEqual({});
    const batch = await postWith(gw.url, [rpc('health', {}, 1), rpc('abci_info', {}, 2)], { 'x-api-key': PLAIN_KEY });
    expect(batch.json.map((m: any) => m.id)).toEqual([1, 2]);
    const uri = await get(gw.url, `/key/${PLAIN_KEY}/abci_info`);
    expect(uri.status).toBe(200);
    expect(uri.json.result.response).toBeDefined();
    expect((await get(gw.url, '/abci_info')).status).toBe(401);
    // The endpoint list needs a key as well.
    expect((await get(gw.url, '/')).status).toBe(401);
    expect((await get(gw.url, `/key/${PLAIN_KEY}/`)).status).toBe(200);
  });

  it('node RPC WebSocket: the upgrade needs a key (401 with a JSON body), by header or path', async () => {
    const refused = await PipelineSocket.open(gw.wsUrl);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request', data: 'API key required' } });
    }
    const byPath = await PipelineSocket.connect(gw.wsUrl.replace('/websocket', `/key/${PLAIN_KEY}/websocket`));
    byPath.pipeline([rpc('health')]);
    expect((await byPath.collect(1))[0].result).toEqual({});
    await byPath.close();
    const byHeader = await PipelineSocket.connect(gw.wsUrl, { Authorization: `Bearer ${PLAIN_KEY}` });
    await byHeader.close();
  });

  it('EVM RPC HTTP and WebSocket: 401 with go-ethereum\'s error shape; a key lets calls through', async () => {
    const none = await postWith(gw.evmHttpUrl!, rpc('eth_chainId', []));
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'missing API key' } });
    const wrong = await postWith(gw.evmHttpUrl!, rpc('eth_chainId', []), { 'x-api-key': 'nope-nope-nope' });
    expect(wrong.json.error.message).toBe('invalid API key');
    expect((await postWith(`${gw.evmHttpUrl}/key/${PLAIN_KEY}`, rpc('eth_chainId', []))).json.result).toMatch(/^0x/);
    expect((await postWith(gw.evmHttpUrl!, rpc('eth_chainId', []), { Authorization: `Bearer ${PLAIN_KEY}` })).json.result).toMatch(/^0x/);
    const refused = await PipelineSocket.open(gw.evmWsUrl!);
    expect(refused.ok ? 0 : refused.status).toBe(401);
    if (!refused.ok) expect(JSON.parse(refused.body).error).toEqual({ code: -32600, message: 'missing API key' });
    const ws = await PipelineSocket.connect(`${gw.evmWsUrl}/key/${PLAIN_KEY}`);
    ws.pipeline([rpc('eth_chainId', [])]);
    expect((await ws.collect(1))[0].result).toMatch(/^0x/);
    await ws.close();
  });

  // A debug tracer: the runtime methods are closed to everyone without enable-profiling.
  it("a key's extra namespace (debug for one team): served to it on every transport, not to others", async () => {
    const team = { 'x-api-key': TEAM_KEY };
    expect((await postWith(gw.evmHttpUrl!, rpc('debug_traceBlockByNumber', ['0x1', {}]), team)).json.result).toBeDefined();
    const other = await postWith(gw.evmHttpUrl!, rpc('debug_traceBlockByNumber', ['0x1', {}]), { 'x-api-key': PLAIN_KEY });
    expect(other.json.error).toEqual({ code: -32601, message: 'the method debug_traceBlockByNumber does not exist/is not available' });
    const batch = await postWith(gw.evmHttpUrl!, [rpc('debug_traceBlockByNumber', ['0x1', {}], 1), rpc('eth_chainId', [], 2)], team);
    expect(batch.json[0].result).toBeDefined();
    const ws = await PipelineSocket.connect(`${gw.evmWsUrl}/key/${TEAM_KEY}`);
    ws.pipeline([rpc('debug_traceBlockByNumber', ['0x1', {}], 7)]);
    expect((await ws.collect(1))[0].result).toBeDefined();
    await ws.close();
  });

  it("a key with unsafe = true (stored as its sha256): node RPC's unsafe routes for it alone", async () => {
    const ops = { Authorization: `Bearer ${OPS_KEY}` };
    expect((await postWith(gw.url, rpc('unsafe_flush_mempool'), ops)).json.result).toEqual({});
    expect((await postWith(gw.url, rpc('unsafe_flush_mempool'), { 'x-api-key': PLAIN_KEY })).json.error).toEqual({ code: -32601, message: 'Method not found' });
    const batch = await postWith(gw.url, [rpc('unsafe_flush_mempool', {}, 1), rpc('health', {}, 2)], ops);
    expect(batch.json[0].result).toEqual({});
    expect((await get(gw.url, `/key/${OPS_KEY}/unsafe_flush_mempool`)).json.result).toEqual({});
    const ws = await PipelineSocket.connect(gw.wsUrl, ops);
    ws.pipeline([rpc('unsafe_flush_mempool', {}, 3)]);
    expect((await ws.collect(1))[0].result).toEqual({});
    await ws.close();
  });
});

describe('keys never reach logs or metrics', () => {
  let gw: RunningGateway;
  let home: string;
  const lines: string[] = [];

  beforeAll(async () => {
    home = homeWith({ 'keys.json': JSON.stringify({ keys: [{ name: 'json-team', key: TEAM_KEY }] }) });
    const config = loadConfig({
      home,
      env: {},
      flags: {
        'rpc.laddr': 'tcp://127.0.0.1:0',
        'devnet.block_time': '200ms',
        'log.level': 'debug',
        'log.format': 'json',
        'access.keys_file': 'keys.json',
        'instrumentation.prometheus': 'true',
        'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
        ...EVM_FLAGS,
      },
    });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    gw = await startGateway(config, { logDestination: sink });
  });
  afterAll(async () => {
    await gw?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('a JSON keys file works, and after calls of every kind no log line or metric holds the key', async () => {
    const url = gw.nodeRpcUrls[0];
    expect((await postWith(`${url}/key/${TEAM_KEY}/`, rpc('health'))).json.result).toEqual({});
    expect((await postWith(url, rpc('no_such_method'), { Authorization: `Bearer ${TEAM_KEY}` })).json.error.code).toBe(-32601);
    expect((await get(url, `/key/${TEAM_KEY}/block?height=999999`)).status).toBe(500);
    expect((await postWith(gw.evmHttpUrl!, rpc('eth_getBalance', ['0xzz']), { 'x-api-key': TEAM_KEY })).json.error).toBeDefined();
    expect((await postWith(url, rpc('health'), { 'x-api-key': `${TEAM_KEY}-wrong` })).status).toBe(401);
    const ws = await PipelineSocket.connect(`${gw.evmWsUrl}/key/${TEAM_KEY}`);
    ws.pipeline([rpc('eth_nope', [])]);
    await ws.collect(1);
    await ws.close();
    await new Promise((r) => setTimeout(r, 200));
    const logs = lines.join('');
    expect(logs).toContain('rpc error');
    expect(logs).not.toContain(TEAM_KEY);
    const metrics = await (await fetch(`${gw.metricsUrl}/metrics`)).text();
    expect(metrics).not.toContain(TEAM_KEY);
    expect(metrics).not.toContain('json-team');
    expect(metrics).toMatch(/refusals_total\{interface="node",reason="unauthorized"\} 1/);
  });
});

describe('a bad keys file stops start-up with one line', () => {
  it.each([
    ['keys.toml', '[[keys]]\nname = "a"\n', /key #1: expected either key \(at least 8 characters\) or sha256/],
    ['keys.toml', `[[keys]]\nname = "a"\nkey = "${PLAIN_KEY}"\n[[keys]]\nname = "a"\nkey = "${TEAM_KEY}"\n`, /key #2: name "a": expected a name no other key has/],
    ['keys.json', '{"keys": [{"name": "a", "key": "12345678", "color": "red"}]}', /key #1: color: expected one of the keys/],
    ['keys.toml', `[[keys]]\nname = "a"\nkey = "${PLAIN_KEY}"\n[[keys.rate]]\nname = "r"\nmethods = "*"\nlimit = 0\nwindow = "1s"\n`, /rate #1 limit = 0: expected an integer from 1 to 9007199254740991/],
  ])('%s: %s', async (file, text, message) => {
    const home = homeWith({ [file]: text });
    await expect(startTestGateway({ 'access.keys_file': file }, home)).rejects.toThrow(message);
    rmSync(home, { recursive: true, force: true });
  });
});
