/**
 * One plugin package with both interfaces, loaded by one `[plugins] load` entry: its EVM namespace and
 * its node routes served over real sockets in both backends, array parameters (`arrayOf`) decoded as the
 * interface does.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../../src/config/config-error';
import { loadPlugins } from '../../../src/plugins/loader';
import { BACKENDS, startGatewayOver } from '../../support/backends';
import { post, type TestGateway } from '../../support/gateway';

jest.setTimeout(60_000);

const FIXTURES = resolve(__dirname, '../../fixtures/plugins');
const settings = (load: string[], tables: Record<string, Record<string, unknown>> = {}) => ({ load, tables });

describe.each(BACKENDS)('one package, both interfaces, %s backend', (kind) => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGatewayOver(kind, {
      'plugins.load': join(FIXTURES, 'both.ts'),
      'plugins.node_api': 'acmenode',
      'json-rpc.enable': 'true',
      'json-rpc.address': '127.0.0.1:0',
      'json-rpc.ws-address': '127.0.0.1:0',
      'json-rpc.api': 'eth,acme',
    });
  });
  afterAll(() => gw?.close());

  it('serves its EVM method, with an array parameter', async () => {
    const sum = await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method: 'acme_sum', params: [['0x1', '0x10']] });
    expect(sum.json).toEqual({ jsonrpc: '2.0', id: 1, result: '0x11' });
    const wrong = await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 2, method: 'acme_sum', params: ['0x1'] });
    expect(wrong.json.error).toEqual({ code: -32602, message: 'invalid argument 0: json: cannot unmarshal string into Go value of type []hexutil.Uint64' });
    const item = await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 3, method: 'acme_sum', params: [['0x1', '1']] });
    expect(item.json.error.message).toMatch(/^invalid argument 0: item 1: /);
  });

  it('serves its node route over POST and URI, with an array parameter', async () => {
    const max = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'acme_max', params: { heights: ['3', '12', '5'] } });
    expect(max.json).toEqual({ jsonrpc: '2.0', id: 1, result: { max: '12' } });
    const uri = await fetch(`${gw.url}/acme_max?heights=[3,40]`);
    expect(await uri.json()).toEqual({ jsonrpc: '2.0', id: -1, result: { max: '40' } });
  });
});

describe('loading the manifests of one package', () => {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-one-package-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('takes an array of manifests or { evm, node }, each a plugin of its own name and config table', () => {
    expect(loadPlugins(settings([join(FIXTURES, 'both-array.js')]), home).map((p) => `${p.manifest.name}:${p.manifest.interface}`)).toEqual(['pair:evm', 'pair-node:node']);
    expect(loadPlugins(settings([join(FIXTURES, 'both.ts')]), home).map((p) => `${p.manifest.name}:${p.manifest.interface}`)).toEqual(['acme:evm', 'acme-node:node']);
  });

  it('refuses a manifest under the other interface with one line', () => {
    const swapped = join(home, 'swapped.js');
    writeFileSync(
      swapped,
      "module.exports = { node: { name: 'x', version: '1', apiVersion: 2, interface: 'evm', namespaces: ['x'], methods: () => [] } };",
    );
    expect(() => loadPlugins(settings([swapped]), home)).toThrow(ConfigError);
    expect(() => loadPlugins(settings([swapped]), home)).toThrow(/: expected plugin x under "node" to extend "node" \(it names "evm"\)$/);
  });
});
