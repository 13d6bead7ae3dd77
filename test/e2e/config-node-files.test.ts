/**
 * A node's own config.toml and app.toml (test/fixtures/node-config/, rendered from the projects'
 * templates) dropped into a home unchanged: the gateway starts on each pair and serves; `rpc-gateway config
 * check` prints the effective values with their origins and the warnings, and exits 1 on an error.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, startTestGateway } from '../support/gateway';
import { runGatewayCli } from '../support/gateway-cli';
import { untilLogged } from '../support/gateway-process';

jest.setTimeout(180_000);

const FIXTURES = join(__dirname, '..', 'fixtures', 'node-config');
const homes: string[] = [];

afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function homeWith(configToml: string, appToml: string, gatewayToml?: string): string {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-node-files-'));
  homes.push(home);
  mkdirSync(join(home, 'config'));
  copyFileSync(join(FIXTURES, configToml), join(home, 'config', 'config.toml'));
  copyFileSync(join(FIXTURES, appToml), join(home, 'config', 'app.toml'));
  if (gatewayToml !== undefined) writeFileSync(join(home, 'config', 'gateway.toml'), gatewayToml);
  return home;
}

// Only the listen addresses move to free ports; every other value is the file's.
const PORTS = {
  'rpc.laddr': 'tcp://127.0.0.1:0',
  'json-rpc.address': '127.0.0.1:0',
  'json-rpc.ws-address': '127.0.0.1:0',
  'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
};

it.each([
  ['cometbft-v0.38.12.config.toml', 'evmos-v20.app.toml'],
  ['cometbft-v0.38.12.config.toml', 'cosmos-evm-v0.7.0.app.toml'],
  ['cometbft-v0.38.12-production.config.toml', 'cosmos-evm-v0.7.0-production.app.toml'],
])('starts on %s with %s and serves', async (configToml, appToml) => {
  const home = homeWith(configToml, appToml);
  // The test helper turns the EVM RPC off unless told: keep each file's own `enable`.
  const gw = await startTestGateway({ ...PORTS, 'json-rpc.enable': String(appToml.includes('production')) }, home);
  try {
    expect((await call(gw.url, 'status')).node_info).toBeDefined();
    if (gw.evmHttpUrl) expect(await call(gw.evmHttpUrl, 'eth_chainId', [])).toMatch(/^0x/);
  } finally {
    await gw.close();
  }
});

it('start logs the node keys it does not serve, one line per file, as warnings', async () => {
  const home = homeWith('cometbft-v0.38.12.config.toml', 'evmos-v20.app.toml');
  const root = join(__dirname, '..', '..');
  const args = ['-r', join(root, 'test', 'support', 'register-ts.js'), join(root, 'src', 'main.ts'), 'start', '--home', home, '--log.format', 'json', '--devnet.ephemeral'];
  for (const [key, value] of Object.entries(PORTS)) args.push('--set', `${key}=${value}`);
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const seen: string[] = [];
    await untilLogged(child, 120_000, (msg) => {
      // The warnings' logger is not the gateway's: its lines may come after the listening line.
      if (msg.includes('rpc-gateway does not serve')) seen.push(msg);
      return seen.length === 2 ? true : undefined;
    });
    expect(seen).toEqual([
      'config.toml [rpc]: grpc_laddr, grpc_max_open_connections, pprof_laddr are node settings rpc-gateway does not serve',
      'app.toml [evm]: tracer, max-tx-gas-wanted; [json-rpc]: enable-indexer, metrics-address, fix-revert-gas-refund-height are node settings rpc-gateway does not serve',
    ]);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});

it('config check: effective values with their origins, secrets redacted, and every warning', async () => {
  const home = homeWith('cometbft-v0.38.12.config.toml', 'cosmos-evm-v0.7.0-production.app.toml', '[queue]\nredis_url = "redis://:hunter2@redis:6379"\n');
  const run = await runGatewayCli(['config', 'check', '--home', home, '--json-rpc.logs-cap', '500'], home);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^ {2}evm-timeout = "3s" +# config\/app\.toml$/m);
  expect(run.stdout).toMatch(/^ {2}logs-cap = 500 +# flag --json-rpc\.logs-cap$/m);
  expect(run.stdout).toMatch(/^ {2}filter-cap = 200 +# default$/m);
  expect(run.stdout).toMatch(/^ {2}redis_url = "redis:\/\/:\*\*\*@redis:6379" +# config\/gateway\.toml$/m);
  expect(run.stdout).not.toContain('hunter2');
  expect(run.stdout).toContain('warning: config.toml [rpc]: grpc_laddr, grpc_max_open_connections, pprof_laddr are node settings rpc-gateway does not serve\n');
});

it('config check: exits 1 with the one line of an error', async () => {
  const home = homeWith('cometbft-v0.38.12.config.toml', 'evmos-v20.app.toml', '[backend]\nknd = "upstream"\n');
  const run = await runGatewayCli(['config', 'check', '--home', home], home);
  expect(run.code).toBe(1);
  expect(run.stderr).toBe('config/gateway.toml: [backend] knd = "upstream": unknown key; did you mean kind?\n');
});
