/**
 * The plugin system end to end: the template of docs/plugins.md, installed and compiled on its own with
 * the guide's steps against the public API's declarations (as a plugin author's project compiles it) and
 * loaded by path, serves its methods over HTTP, batch and WebSocket, reads its config table, and in
 * upstream mode is forwarded and cached by its own rules; a plugin's failure answers only its caller; each bad plugin stops start-up with one
 * line; gating follows `[json-rpc] api`, `[plugins] node_api` and `[rpc] unsafe`.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { startGateway } from '../../src/bootstrap';
import { ConfigError } from '../../src/config/config-error';
import { loadConfig } from '../../src/config/load-config';
import { loadPlugins, pluginNamespaces } from '../../src/plugins/loader';
import { formatPluginListing, listPlugins } from '../../src/plugins/plugin-listing';
import { call, post, startTestGateway, type TestGateway } from '../support/gateway';
import { compileTemplate } from '../support/plugin-template';
import { Exposition } from '../unit/metrics/exposition';

const ROOT = resolve(__dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/plugins');
const work = mkdtempSync(join(tmpdir(), 'rpcgw-plugin-'));
/** The template, compiled where a plugin author would have it (its own folder and node_modules). */
const hello = join(work, 'hello');

const EVM = { 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0' };

function rpc(url: string, method: string, params: unknown[] = [], id: number = 1): Promise<{ result?: any; error?: { code: number; message: string } }> {
  return post(url, { jsonrpc: '2.0', id, method, params }).then((res) => res.json);
}

function wsCall(url: string, message: object): Promise<any> {
  const ws = new WebSocket(url);
  return new Promise((resolveAnswer, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify(message)));
    ws.once('message', (data) => {
      resolveAnswer(JSON.parse(data.toString()));
      ws.close();
    });
  });
}

beforeAll(() => void compileTemplate(work), 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a plugin compiled on its own, loaded by path', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ ...EVM, 'json-rpc.api': 'eth,hello', 'plugins.load': hello, 'devnet.block_time': '100ms' });
  });
  afterAll(() => gw?.close());

  it('serves its methods over HTTP, in a batch and over WebSocket', async () => {
    expect(await rpc(gw.evmHttpUrl!, 'hello_greet', ['ada'])).toEqual({ jsonrpc: '2.0', id: 1, result: 'hello, ada' });
    const batch = await post(gw.evmHttpUrl!, [
      { jsonrpc: '2.0', id: 1, method: 'hello_greet', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'hello_head', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'eth_chainId', params: [] },
    ]);
    expect(batch.json[0].result).toBe('hello, world');
    expect(batch.json[1].result).toEqual({ node_height: expect.stringMatching(/^[1-9]\d*$/), evm_block: expect.stringMatching(/^0x[1-9a-f][0-9a-f]*$/) });
    expect(batch.json[2].result).toMatch(/^0x/);
    expect(await wsCall(gw.evmWsUrl!, { jsonrpc: '2.0', id: 9, method: 'hello_greet', params: ['ws'] })).toEqual({ jsonrpc: '2.0', id: 9, result: 'hello, ws' });
  });

  it('gets the same param validation as built-in methods', async () => {
    expect((await rpc(gw.evmHttpUrl!, 'hello_greet', [7])).error).toEqual({ code: -32602, message: 'invalid argument 0: json: cannot unmarshal number into Go value of type string' });
    expect((await rpc(gw.evmHttpUrl!, 'hello_greet', ['a', 'b'])).error).toEqual({ code: -32602, message: 'too many arguments, want at most 1' });
  });

  it('is listed by rpc_modules', async () => {
    expect((await rpc(gw.evmHttpUrl!, 'rpc_modules')).result).toEqual({ eth: '1.0', hello: '1.0', rpc: '1.0' });
  });
});

describe('its config table', () => {
  it('is read from [plugins.hello]', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rpcgw-plugin-home-'));
    mkdirSync(join(home, 'config'));
    writeFileSync(join(home, 'config/gateway.toml'), `[plugins]\nload = [${JSON.stringify(hello)}]\n\n[plugins.hello]\ngreeting = "ahoy"\n`);
    const gw = await startTestGateway({ ...EVM, 'json-rpc.api': 'hello' }, home);
    try {
      expect((await rpc(gw.evmHttpUrl!, 'hello_greet', ['ada'])).result).toBe('ahoy, ada');
    } finally {
      await gw.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('a plugin installed as an npm package', () => {
  it('loads by its package name from the home dir', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rpcgw-plugin-pkg-'));
    mkdirSync(join(home, 'node_modules'));
    symlinkSync(hello, join(home, 'node_modules/rpc-gateway-plugin-hello'), 'dir');
    const gw = await startTestGateway({ ...EVM, 'json-rpc.api': 'hello', 'plugins.load': 'rpc-gateway-plugin-hello' }, home);
    try {
      expect((await rpc(gw.evmHttpUrl!, 'hello_greet', ['npm'])).result).toBe('hello, npm');
    } finally {
      await gw.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('in upstream mode', () => {
  let upstream: TestGateway;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await startTestGateway({ ...EVM, 'json-rpc.api': 'eth,net,web3,hello', 'plugins.load': hello });
    const home = mkdtempSync(join(tmpdir(), 'rpcgw-plugin-up-'));
    mkdirSync(join(home, 'config'));
    writeFileSync(
      join(home, 'config/gateway.toml'),
      `[backend]\nkind = "upstream"\n\n[plugins]\nload = [${JSON.stringify(hello)}]\n\n` +
        `[[upstream.node]]\nname = "devnet"\nurl = "${upstream.url}"\n\n[[upstream.evm]]\nname = "devnet"\nurl = "${upstream.evmHttpUrl}"\n`,
    );
    gw = await startTestGateway({ ...EVM, 'json-rpc.api': 'eth,hello' }, home);
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
    if (gw) rmSync(gw.home, { recursive: true, force: true });
  });

  it('forwards a plugin method as the client sent it and keeps its immutable answer', async () => {
    const before = (await rpc(upstream.evmHttpUrl!, 'hello_counts')).result.greeted as number;
    for (let i = 0; i < 3; i++) expect((await rpc(gw.evmHttpUrl!, 'hello_greet', ['cached'])).result).toBe('hello, cached');
    expect((await rpc(upstream.evmHttpUrl!, 'hello_counts')).result.greeted).toBe(before + 1);
  });

  it("runs a method that is not forwarded on this gateway's own handler", async () => {
    expect((await rpc(gw.evmHttpUrl!, 'hello_counts')).result.greeted).toBe(0);
  });

  it('caches a computed method by its rule: three identical calls run its handler once', async () => {
    const block = (await rpc(upstream.evmHttpUrl!, 'eth_getBlockByNumber', ['0x1', false])).result;
    const expected = { number: '0x1', hash: block.hash, transactions: block.transactions.length };
    for (let i = 0; i < 3; i++) expect((await rpc(gw.evmHttpUrl!, 'hello_blockSummary', ['0x1'])).result).toEqual(expected);
    expect((await rpc(gw.evmHttpUrl!, 'hello_counts')).result.summarized).toBe(1);
    // Not forwarded: the upstream's own handler never ran.
    expect((await rpc(upstream.evmHttpUrl!, 'hello_counts')).result.summarized).toBe(0);
    // `latest` lives for a block at most: each new block is summarized afresh.
    expect((await rpc(gw.evmHttpUrl!, 'hello_blockSummary', ['latest'])).result).toMatchObject({ hash: expect.any(String) });
  });
});

describe('a plugin that fails', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      'plugins.load': join(FIXTURES, 'faulty.ts'),
      'plugins.node_api': 'faulty',
      'instrumentation.prometheus': 'true',
      'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
    });
  });
  afterAll(() => gw?.close());

  it('answers only its caller with an internal error, counted under the plugin', async () => {
    const res = await post(gw.url, [
      { jsonrpc: '2.0', id: 1, method: 'faulty_bug' },
      { jsonrpc: '2.0', id: 2, method: 'faulty_echo', params: { text: 'still here' } },
      { jsonrpc: '2.0', id: 3, method: 'health' },
    ]);
    expect(res.json).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error', data: 'internal error' } },
      { jsonrpc: '2.0', id: 2, result: { text: 'still here' } },
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
    expect(await call(gw.url, 'faulty_echo', { text: 'after' })).toEqual({ text: 'after' });
    const metrics = new Exposition(await (await fetch(`${gw.metricsUrl}/metrics`)).text());
    expect(metrics.value('rpcgw_plugin_errors_total', { plugin: 'faulty' })).toBe(1);
  });

  it('answers an error it means as the interface answers any failed operation', async () => {
    expect((await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'faulty_refuse' })).json.error).toEqual({ code: -32603, message: 'Internal error', data: 'refused on purpose' });
  });

  it('serves a node-RPC plugin route over URI, POST and WebSocket', async () => {
    const uri = await fetch(`${gw.url}/faulty_echo?text="uri"`);
    expect(await uri.json()).toEqual({ jsonrpc: '2.0', id: -1, result: { text: 'uri' } });
    expect(await call(gw.url, 'faulty_echo', ['positional'])).toEqual({ text: 'positional' });
    expect(await wsCall(gw.wsUrl, { jsonrpc: '2.0', id: 4, method: 'faulty_echo', params: { text: 'ws' } })).toEqual({ jsonrpc: '2.0', id: 4, result: { text: 'ws' } });
  });

  it('refuses an unsafe plugin route without [rpc] unsafe = true', async () => {
    expect((await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'faulty_secret' })).json.error).toEqual({ code: -32601, message: 'Method not found' });
  });
});

describe('gating', () => {
  it('an EVM plugin namespace is served only when [json-rpc] api lists it', async () => {
    const gw = await startTestGateway({ ...EVM, 'json-rpc.api': 'eth', 'plugins.load': hello });
    try {
      expect((await rpc(gw.evmHttpUrl!, 'hello_greet', ['x'])).error).toEqual({ code: -32601, message: 'the method hello_greet does not exist/is not available' });
      expect((await wsCall(gw.evmWsUrl!, { jsonrpc: '2.0', id: 1, method: 'hello_greet', params: [] })).error.code).toBe(-32601);
    } finally {
      await gw.close();
    }
  });

  it('a node plugin category only when [plugins] node_api lists it; an unsafe route only with [rpc] unsafe', async () => {
    const gw = await startTestGateway({ 'plugins.load': join(FIXTURES, 'faulty.ts'), 'plugins.node_api': '', 'rpc.unsafe': 'true' });
    try {
      expect((await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'faulty_echo', params: { text: 'x' } })).json.error).toEqual({ code: -32601, message: 'Method not found' });
      expect((await fetch(`${gw.url}/faulty_echo?text="x"`)).status).toBe(404);
    } finally {
      await gw.close();
    }
    const open = await startTestGateway({ 'plugins.load': join(FIXTURES, 'faulty.ts'), 'plugins.node_api': 'faulty', 'rpc.unsafe': 'true' });
    try {
      expect(await call(open.url, 'faulty_secret')).toEqual({ secret: 'opened' });
    } finally {
      await open.close();
    }
  });
});

describe('rpc-gateway plugins', () => {
  it('lists each plugin, its methods and whether each is served', () => {
    const home = mkdtempSync(join(tmpdir(), 'rpcgw-plugin-list-'));
    try {
      const flags = { 'plugins.load': `${hello},${join(FIXTURES, 'faulty.ts')}`, 'plugins.node_api': 'faulty', 'json-rpc.api': 'eth,hello' };
      const config = loadConfig({ home, flags, pluginNamespaces });
      expect(formatPluginListing(listPlugins(loadPlugins(config.gateway.plugins, config.home), config))).toBe(
        `hello 0.1.0 (evm; hello) from ${hello}\n` +
          '  served      hello_greet\n  served      hello_head\n  served      hello_blockSummary\n  served      hello_subscribe  (WebSocket only)\n  served      hello_counts\n' +
          `hello-node 0.1.0 (node; hello) from ${hello}\n  not served  hello_status\n` +
          `faulty 1.0.0 (node; faulty) from ${join(FIXTURES, 'faulty.ts')}\n` +
          '  served      faulty_bug\n  served      faulty_refuse\n  served      faulty_echo\n  not served  faulty_secret  (unsafe)\n',
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('a bad plugin stops start-up with one line', () => {
  const start = async (load: string[], tables = '') => {
    const home = mkdtempSync(join(tmpdir(), 'rpcgw-bad-plugin-'));
    mkdirSync(join(home, 'config'));
    writeFileSync(join(home, 'config/gateway.toml'), `[plugins]\nload = ${JSON.stringify(load)}\n${tables}`);
    try {
      const config = loadConfig({ home, flags: { 'rpc.laddr': 'tcp://127.0.0.1:0', 'json-rpc.enable': 'false' }, pluginNamespaces });
      const gw = await startGateway(config, { logger: false });
      await gw.close();
      return undefined;
    } catch (err) {
      return err as Error;
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  };
  const fixture = (name: string) => join(FIXTURES, name);

  it.each([
    [[fixture('missing.js')], '', /^config\/gateway\.toml: \[plugins\] load = ".*missing\.js": expected a plugin module; nothing at .*missing\.js$/],
    [[fixture('no-manifest.js')], '', /: expected a module exporting a plugin manifest \(definePlugin\(\{\.\.\.\}\)\)$/],
    [[fixture('future-api.js')], '', /: expected plugin future written for plugin API version 2 \(it names 99\)$/],
    [[fixture('eth-clash.js')], '', /: expected plugin clash's namespace eth not to be a built-in one$/],
    [['HELLO', fixture('hello-clash.js')], '', /: expected plugin hello-two's namespace hello not to be plugin hello's too$/],
    [[fixture('bad-handler.js')], '', /^plugin badhandler: method badhandler_call has a handler that is not a function$/],
    [[fixture('route-clash.js')], '', /^plugin routes: method status is already registered by info$/],
    [['HELLO'], '[plugins.hello]\ngreeting = ""\n', /^config\/gateway\.toml: \[plugins\.hello\] greeting = "": expected a non-empty string$/],
    [['HELLO'], '[plugins.hello]\ngreting = "x"\n', /^config\/gateway\.toml: \[plugins\.hello\] greting = "x": unknown key; did you mean greeting\?$/],
    [['HELLO'], '[plugins.nobody]\nx = 1\n', /^config\/gateway\.toml: \[plugins\.nobody\]: expected the table of a loaded plugin \(loaded: hello, hello-node\)$/],
    [['no-such-plugin-package'], '', /: expected an installed npm package \(npm install no-such-plugin-package\)$/],
  ])('%j %j', async (load, tables, message) => {
    const err = await start(
      load.map((l) => (l === 'HELLO' ? hello : l)),
      tables,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toMatch(message);
    expect(err!.message).not.toContain('\n');
  });
});
