/**
 * The real files of a node, unchanged (test/fixtures/node-config/: CometBFT v0.38.12's config.toml as
 * evmosd init writes it, Evmos v20's and cosmos/evm v0.7.0's app.toml, and production variants): they load,
 * their values are read, no key is taken for a typo, and each node key the gateway does not serve is named
 * exactly once, in one line per file.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../../src/config/load-config';
import { tempHome } from './temp-home';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'node-config');

function resolveFixtures(configToml: string, appToml: string) {
  const home = tempHome();
  copyFileSync(join(FIXTURES, configToml), join(home, 'config', 'config.toml'));
  copyFileSync(join(FIXTURES, appToml), join(home, 'config', 'app.toml'));
  return resolveConfig({ home });
}

const CONFIG_TOML_LINE = 'config.toml [rpc]: grpc_laddr, grpc_max_open_connections, pprof_laddr are node settings rpc-gateway does not serve';
const EVMOS_LINE =
  'app.toml [evm]: tracer, max-tx-gas-wanted; [json-rpc]: enable-indexer, metrics-address, fix-revert-gas-refund-height are node settings rpc-gateway does not serve';
const COSMOS_EVM_LINE =
  'app.toml [evm]: tracer, max-tx-gas-wanted, cache-preimage, evm-chain-id, min-tip, geth-metrics-address; [json-rpc]: enable-indexer, metrics-address are node settings rpc-gateway does not serve';

/** Every key a warning line names, in order. */
const namedKeys = (line: string): string[] =>
  line
    .replace(/^\S+ /, '')
    .replace(/ (is a node setting|are node settings) rpc-gateway does not serve$/, '')
    .split('; ')
    .flatMap((part) => part.replace(/^\[[^\]]+\]: /, '').split(', '));

it.each([
  ['cometbft-v0.38.12.config.toml', 'evmos-v20.app.toml', [CONFIG_TOML_LINE, EVMOS_LINE]],
  ['cometbft-v0.38.12.config.toml', 'cosmos-evm-v0.7.0.app.toml', [CONFIG_TOML_LINE, COSMOS_EVM_LINE]],
  ['cometbft-v0.38.12-production.config.toml', 'cosmos-evm-v0.7.0-production.app.toml', [CONFIG_TOML_LINE, COSMOS_EVM_LINE]],
])('%s with %s: one line per file names each node key once', (configToml, appToml, lines) => {
  const { warnings } = resolveFixtures(configToml, appToml);
  expect(warnings).toEqual(lines);
  for (const line of warnings) {
    const keys = namedKeys(line);
    expect(new Set(keys).size).toBe(keys.length);
  }
});

it("reads the node's defaults: Evmos's JSON-RPC off, its timeouts and caps", () => {
  const { config } = resolveFixtures('cometbft-v0.38.12.config.toml', 'evmos-v20.app.toml');
  expect(config.jsonRpc).toMatchObject({ enable: false, 'evm-timeout': 5_000, 'gas-cap': 25_000_000, 'allow-insecure-unlock': true, api: ['eth', 'net', 'web3'] });
  expect(config.rpc).toMatchObject({ laddr: 'tcp://127.0.0.1:26657', max_open_connections: 900, tls_cert_file: '' });
  expect(config.instrumentation).toMatchObject({ prometheus: false, namespace: 'cometbft' });
});

it('reads the production values', () => {
  const { config } = resolveFixtures('cometbft-v0.38.12-production.config.toml', 'cosmos-evm-v0.7.0-production.app.toml');
  expect(config.rpc).toMatchObject({ laddr: 'tcp://0.0.0.0:26657', cors_allowed_origins: ['*'], max_open_connections: 2000, max_subscription_clients: 500 });
  expect(config.instrumentation).toMatchObject({ prometheus: true, prometheus_listen_addr: '0.0.0.0:26660' });
  expect(config.jsonRpc).toMatchObject({
    enable: true,
    address: '0.0.0.0:8545',
    api: ['eth', 'net', 'web3', 'txpool'],
    'allow-insecure-unlock': false,
    'gas-cap': Number.MAX_SAFE_INTEGER,
    'evm-timeout': 3_000,
    'ws-origins': ['app.example.com'],
    'http-body-limit': 10_485_760,
    'filter-timeout': 300_000,
  });
});
