import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_TABLES, envName } from '../../../src/config/config-tables';
import type { AppConfig } from '../../../src/config/config.types';
import { loadConfig } from '../../../src/config/load-config';
import { UPSTREAM_DEFAULTS } from '../../../src/config/upstream-config';
import { homeWithFixture, tempHome } from './temp-home';

const read = (home: string, file: string) => readFileSync(join(home, 'config', file), 'utf8');

const DEFAULTS: Omit<AppConfig, 'home'> = {
  rpc: CONFIG_TABLES.rpc.defaults,
  instrumentation: CONFIG_TABLES.instrumentation.defaults,
  jsonRpc: CONFIG_TABLES['json-rpc'].defaults,
  tls: CONFIG_TABLES.tls.defaults,
  gateway: {
    backend: CONFIG_TABLES.backend.defaults,
    devnet: CONFIG_TABLES.devnet.defaults,
    queue: CONFIG_TABLES.queue.defaults,
    cache: CONFIG_TABLES.cache.defaults,
    filters: CONFIG_TABLES.filters.defaults,
    plugins: { ...CONFIG_TABLES.plugins.defaults, tables: {}, overrides: { env: {}, flags: {} } },
    log: CONFIG_TABLES.log.defaults,
    upstream: { settings: UPSTREAM_DEFAULTS, nodes: [], evm: [] },
    access: { ...CONFIG_TABLES.access.defaults, rate: [] },
    limits: CONFIG_TABLES.limits.defaults,
    compression: CONFIG_TABLES.compression.defaults,
  },
};

describe('first start', () => {
  it('writes the three files with the defaults, and reading them back gives the defaults', () => {
    const home = tempHome();
    const first = loadConfig({ home });
    expect(first).toEqual({ home, ...DEFAULTS });

    const written = ['config.toml', 'app.toml', 'gateway.toml'].map((file) => read(home, file));
    expect(written[0]).toContain('[rpc]\n');
    expect(written[0]).toContain('timeout_broadcast_tx_commit = "10s"');
    expect(written[1]).toContain('api = "eth,net,web3"');
    expect(written[1]).toContain('http-idle-timeout = "2m0s"');
    expect(written[2]).toContain('block_time = "1s"');

    expect(loadConfig({ home })).toEqual(first);
    expect(['config.toml', 'app.toml', 'gateway.toml'].map((file) => read(home, file))).toEqual(written);
  });

  it('spot-checks the defaults the spec and the node references give', () => {
    const config = loadConfig({ home: tempHome() });
    expect(config.rpc.laddr).toBe('tcp://127.0.0.1:26657');
    expect(config.rpc.timeout_broadcast_tx_commit).toBe(10_000);
    expect(config.jsonRpc.enable).toBe(true);
    expect(config.jsonRpc['evm-timeout']).toBe(10_000);
    expect(config.jsonRpc['http-idle-timeout']).toBe(120_000);
    expect(config.jsonRpc['gas-cap']).toBe(25_000_000);
    expect(config.instrumentation.prometheus_listen_addr).toBe(':26660');
    expect(config.gateway.backend.kind).toBe('embedded');
    expect(config.gateway.devnet.block_time).toBe(1_000);
  });

  it('creates $HOME/config when the home does not exist yet', () => {
    const home = join(tempHome(), 'nested', 'home');
    expect(loadConfig({ home }).home).toBe(home);
    expect(read(home, 'gateway.toml')).toContain('[devnet]');
  });

  it('writes only the missing files and leaves an existing one as it is', () => {
    const text = '[rpc]\nladdr = "tcp://0.0.0.0:1234"\n';
    const home = tempHome({ 'config.toml': text });
    const config = loadConfig({ home });
    expect(read(home, 'config.toml')).toBe(text);
    expect(config.rpc.laddr).toBe('tcp://0.0.0.0:1234');
    // Keys a file leaves out keep their defaults, and so does a table it leaves out.
    expect(config.rpc.max_body_bytes).toBe(1_000_000);
    expect(config.instrumentation).toEqual(DEFAULTS.instrumentation);
    expect(read(home, 'app.toml')).toContain('[json-rpc]');
  });

  it('resolves a relative home to an absolute one', () => {
    const home = tempHome();
    const cwd = process.cwd();
    process.chdir(home);
    try {
      expect(loadConfig({ home: 'sub' }).home).toBe(join(home, 'sub'));
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('precedence: files < environment < flags', () => {
  const home = tempHome({
    'config.toml': '[rpc]\nladdr = "tcp://10.0.0.1:1"\nmax_body_bytes = 111\nunsafe = true\n',
    'gateway.toml': '[log]\nlevel = "warn"\n',
  });
  const env = { RPCGW_RPC_LADDR: 'tcp://10.0.0.2:2', RPCGW_RPC_MAX_BODY_BYTES: '222', RPCGW_LOG_LEVEL: 'error' };

  it('a file beats the default', () => {
    const config = loadConfig({ home });
    expect(config.rpc).toMatchObject({ laddr: 'tcp://10.0.0.1:1', max_body_bytes: 111, unsafe: true });
    expect(config.gateway.log.level).toBe('warn');
  });

  it('the environment beats a file', () => {
    const config = loadConfig({ home, env });
    expect(config.rpc).toMatchObject({ laddr: 'tcp://10.0.0.2:2', max_body_bytes: 222, unsafe: true });
    expect(config.gateway.log.level).toBe('error');
  });

  it('a flag beats the environment', () => {
    const config = loadConfig({ home, env, flags: { 'rpc.laddr': 'tcp://10.0.0.3:3', 'rpc.unsafe': 'false' } });
    expect(config.rpc).toMatchObject({ laddr: 'tcp://10.0.0.3:3', max_body_bytes: 222, unsafe: false });
    expect(config.gateway.log.level).toBe('error');
  });

  it('reads every flag of the command line', () => {
    const config = loadConfig({
      home: tempHome(),
      flags: {
        'rpc.laddr': 'tcp://0.0.0.0:36657,unix:///tmp/rpcgw.sock',
        'rpc.unsafe': 'true',
        'json-rpc.enable': 'false',
        'json-rpc.api': 'eth,net',
        'json-rpc.address': '0.0.0.0:9545',
        'json-rpc.ws-address': '[::1]:9546',
        'devnet.ephemeral': 'true',
        'devnet.block_time': '200ms',
        'devnet.follow': 'http://127.0.0.1:26657',
        'backend.kind': 'upstream',
        'log.level': 'debug',
        'instrumentation.prometheus': 'true',
        'instrumentation.prometheus_listen_addr': '0.0.0.0:9100',
      },
    });
    expect(config.rpc).toMatchObject({ laddr: 'tcp://0.0.0.0:36657,unix:///tmp/rpcgw.sock', unsafe: true });
    expect(config.jsonRpc).toMatchObject({
      enable: false,
      api: ['eth', 'net'],
      address: '0.0.0.0:9545',
      'ws-address': '[::1]:9546',
    });
    expect(config.gateway.devnet).toMatchObject({ ephemeral: true, block_time: 200, follow: 'http://127.0.0.1:26657' });
    expect(config.gateway.backend.kind).toBe('upstream');
    expect(config.gateway.log.level).toBe('debug');
    expect(config.instrumentation).toMatchObject({ prometheus: true, prometheus_listen_addr: '0.0.0.0:9100' });
  });

  it('maps any table.key flag, whether words are joined by "-" or "_"', () => {
    const config = loadConfig({
      home: tempHome(),
      flags: {
        'rpc.max_subscription_clients': '7',
        'json-rpc.batch_request_limit': '5',
        'devnet.max-tx-bytes': '2048',
        'cache.max_bytes': '0',
        'plugins.load': '["./a.js", "./b.js"]',
      },
    });
    expect(config.rpc.max_subscription_clients).toBe(7);
    expect(config.jsonRpc['batch-request-limit']).toBe(5);
    expect(config.gateway.devnet.max_tx_bytes).toBe(2048);
    expect(config.gateway.cache.max_bytes).toBe(0);
    expect(config.gateway.plugins.load).toEqual(['./a.js', './b.js']);
  });

  it('names every key RPCGW_<TABLE>_<KEY>, and each name is distinct', () => {
    const names = Object.entries(CONFIG_TABLES).flatMap(([table, spec]) =>
      Object.keys(spec.keys).map((key) => envName(table, key)),
    );
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'RPCGW_RPC_LADDR',
        'RPCGW_JSON_RPC_API',
        'RPCGW_JSON_RPC_WS_ADDRESS',
        'RPCGW_DEVNET_BLOCK_TIME',
        'RPCGW_BACKEND_KIND',
        'RPCGW_INSTRUMENTATION_PROMETHEUS_LISTEN_ADDR',
      ]),
    );
  });

  it('reads environment values as their kind and ignores other RPCGW_ variables', () => {
    const config = loadConfig({
      home: tempHome(),
      env: {
        RPCGW_HOME: '/elsewhere',
        RPCGW_NOT_A_KEY: 'x',
        RPCGW_JSON_RPC_WS_ORIGINS: 'example.com, localhost',
        RPCGW_JSON_RPC_TXFEE_CAP: '0.5',
        RPCGW_JSON_RPC_HTTP_TIMEOUT: '1m30s',
        RPCGW_INSTRUMENTATION_PROMETHEUS: 'TRUE',
        RPCGW_QUEUE_REDIS_URL: 'redis://redis:6379/0',
      },
    });
    expect(config.jsonRpc['ws-origins']).toEqual(['example.com', 'localhost']);
    expect(config.jsonRpc['txfee-cap']).toBe(0.5);
    expect(config.jsonRpc['http-timeout']).toBe(90_000);
    expect(config.instrumentation.prometheus).toBe(true);
    expect(config.gateway.queue.redis_url).toBe('redis://redis:6379/0');
  });
});

describe('durations', () => {
  it('resolve Go-style strings from every source to milliseconds', () => {
    const home = tempHome({
      'config.toml': '[rpc]\ntimeout_broadcast_tx_commit = "1m30s"\n',
      'app.toml': '[json-rpc]\nevm-timeout = "0"\nhttp-timeout = "1.5s"\n',
    });
    const config = loadConfig({
      home,
      env: { RPCGW_JSON_RPC_HTTP_IDLE_TIMEOUT: '500ms' },
      flags: { 'devnet.block_time': '2s' },
    });
    expect(config.rpc.timeout_broadcast_tx_commit).toBe(90_000);
    expect(config.jsonRpc['evm-timeout']).toBe(0);
    expect(config.jsonRpc['http-timeout']).toBe(1_500);
    expect(config.jsonRpc['http-idle-timeout']).toBe(500);
    expect(config.gateway.devnet.block_time).toBe(2_000);
  });
});

describe('[json-rpc] api', () => {
  it('accepts the comma-separated string Evmos writes', () => {
    const home = tempHome({ 'app.toml': '[json-rpc]\napi = "eth, net,web3,txpool"\n' });
    expect(loadConfig({ home }).jsonRpc.api).toEqual(['eth', 'net', 'web3', 'txpool']);
  });

  it('accepts a TOML array', () => {
    const home = tempHome({ 'app.toml': '[json-rpc]\napi = ["eth", "debug", "admin"]\n' });
    expect(loadConfig({ home }).jsonRpc.api).toEqual(['eth', 'debug', 'admin']);
  });

  it('accepts an array from a flag and a plugin namespace when one is registered', () => {
    const config = loadConfig({
      home: tempHome(),
      flags: { 'json-rpc.api': '["eth", "ots"]' },
      pluginNamespaces: () => ['ots'],
    });
    expect(config.jsonRpc.api).toEqual(['eth', 'ots']);
  });

  it('accepts an empty list while the server is off', () => {
    const config = loadConfig({ home: tempHome(), flags: { 'json-rpc.enable': 'false', 'json-rpc.api': '' } });
    expect(config.jsonRpc.api).toEqual([]);
  });

  it('other lists take only TOML arrays in a file', () => {
    const home = tempHome({ 'app.toml': '[json-rpc]\nws-origins = "localhost"\n' });
    expect(() => loadConfig({ home })).toThrow(
      'config/app.toml: [json-rpc] ws-origins = "localhost": expected an array of strings',
    );
  });
});

describe('rpc-gas-cap', () => {
  it('is read as gas-cap from a file', () => {
    const home = tempHome({ 'app.toml': '[json-rpc]\nrpc-gas-cap = 0\n' });
    expect(loadConfig({ home }).jsonRpc['gas-cap']).toBe(0);
  });

  it('loses to gas-cap in the same file', () => {
    const home = tempHome({ 'app.toml': '[json-rpc]\nrpc-gas-cap = 1\ngas-cap = 2\n' });
    expect(loadConfig({ home }).jsonRpc['gas-cap']).toBe(2);
  });

  it('is read from the environment and from a flag, in the usual order', () => {
    const home = tempHome({ 'app.toml': '[json-rpc]\ngas-cap = 2\n' });
    expect(loadConfig({ home, env: { RPCGW_JSON_RPC_RPC_GAS_CAP: '3' } }).jsonRpc['gas-cap']).toBe(3);
    expect(
      loadConfig({ home, env: { RPCGW_JSON_RPC_GAS_CAP: '3' }, flags: { 'json-rpc.rpc-gas-cap': '4' } }).jsonRpc['gas-cap'],
    ).toBe(4);
  });

  it('names the alias in an error', () => {
    const home = tempHome({ 'app.toml': '[json-rpc]\nrpc-gas-cap = -1\n' });
    expect(() => loadConfig({ home })).toThrow('config/app.toml: [json-rpc] rpc-gas-cap = -1: expected an integer from 0 to 18446744073709551615');
  });
});

describe("a node's own files", () => {
  it("accepts CometBFT's config.toml with its other tables and keys, and reads [rpc] and [instrumentation]", () => {
    const home = homeWithFixture('config.toml', 'cometbft-config.toml');
    const config = loadConfig({ home });
    expect(config.rpc).toEqual({
      ...DEFAULTS.rpc,
      laddr: 'tcp://0.0.0.0:26657',
      cors_allowed_origins: ['*'],
    });
    expect(config.instrumentation).toEqual({ ...DEFAULTS.instrumentation, prometheus: true, namespace: 'cometbft' });
  });

  it("accepts Evmos's app.toml with its other tables and keys, and reads [json-rpc]", () => {
    const home = homeWithFixture('app.toml', 'evmos-app.toml');
    const config = loadConfig({ home });
    expect(config.jsonRpc).toEqual({
      ...DEFAULTS.jsonRpc,
      address: '0.0.0.0:8545',
      'ws-address': '0.0.0.0:8546',
      api: ['eth', 'net', 'web3', 'txpool'],
      'gas-cap': 30_000_000,
      'evm-timeout': 5_000,
    });
  });

  it('tolerates integers beyond 2^53 outside the keys it reads', () => {
    const home = tempHome({ 'config.toml': 'some_big = 18446744073709551615\n[rpc]\nunsafe = true\n' });
    expect(loadConfig({ home }).rpc.unsafe).toBe(true);
  });

  it('does not change a file that exists', () => {
    const home = homeWithFixture('config.toml', 'cometbft-config.toml');
    const before = read(home, 'config.toml');
    loadConfig({ home });
    expect(read(home, 'config.toml')).toBe(before);
  });

  it('leaves the returned config independent of the defaults', () => {
    const first = loadConfig({ home: tempHome() });
    first.rpc.cors_allowed_methods.push('PUT');
    expect(loadConfig({ home: tempHome() }).rpc.cors_allowed_methods).toEqual(['HEAD', 'GET', 'POST']);
  });

  it('reads a file written by an operator after the first start', () => {
    const home = tempHome();
    loadConfig({ home });
    writeFileSync(join(home, 'config', 'gateway.toml'), '[backend]\nkind = "upstream"\n');
    expect(loadConfig({ home }).gateway.backend.kind).toBe('upstream');
  });
});
