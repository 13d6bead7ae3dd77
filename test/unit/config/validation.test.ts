import { loadConfig } from '../../../src/config/load-config';
import { errorOf } from './error-of';
import { tempHome } from './temp-home';

describe('a bad value in a file', () => {
  it.each([
    ['config.toml', '[rpc]\nmax_body_bytes = -5', 'config/config.toml: [rpc] max_body_bytes = -5: expected an integer from 0 to 9007199254740991'],
    ['config.toml', '[rpc]\nmax_body_bytes = "big"', 'config/config.toml: [rpc] max_body_bytes = "big": expected an integer from 0 to 9007199254740991'],
    ['config.toml', '[rpc]\nmax_body_bytes = 1.5', 'config/config.toml: [rpc] max_body_bytes = 1.5: expected an integer from 0 to 9007199254740991'],
    [
      'config.toml',
      '[rpc]\nladdr = "http://127.0.0.1:26657"',
      'config/config.toml: [rpc] laddr = "http://127.0.0.1:26657": expected comma-separated tcp://host:port or unix:///path addresses',
    ],
    [
      'config.toml',
      '[rpc]\nladdr = "tcp://127.0.0.1:26657,tcp://0.0.0.0"',
      'config/config.toml: [rpc] laddr = "tcp://127.0.0.1:26657,tcp://0.0.0.0": expected comma-separated tcp://host:port or unix:///path addresses',
    ],
    ['config.toml', '[rpc]\nunsafe = "yes"', 'config/config.toml: [rpc] unsafe = "yes": expected true or false'],
    [
      'config.toml',
      '[rpc]\ncors_allowed_origins = "*"',
      'config/config.toml: [rpc] cors_allowed_origins = "*": expected an array of strings',
    ],
    [
      'config.toml',
      '[rpc]\ncors_allowed_origins = ["*", 1]',
      'config/config.toml: [rpc] cors_allowed_origins = ["*", 1]: expected an array of strings',
    ],
    [
      'config.toml',
      '[rpc]\nexperimental_subscription_buffer_size = 99',
      'config/config.toml: [rpc] experimental_subscription_buffer_size = 99: expected an integer from 100 to 9007199254740991',
    ],
    [
      'config.toml',
      '[rpc]\nexperimental_subscription_buffer_size = 300\nexperimental_websocket_write_buffer_size = 250',
      'config/config.toml: [rpc] experimental_websocket_write_buffer_size = 250: expected an integer >= experimental_subscription_buffer_size (300)',
    ],
    [
      'config.toml',
      '[rpc]\ntimeout_broadcast_tx_commit = 10',
      'config/config.toml: [rpc] timeout_broadcast_tx_commit = 10: expected a duration >= 0, such as "10s", "500ms" or "1m30s"',
    ],
    [
      'config.toml',
      '[rpc]\ntimeout_broadcast_tx_commit = "-1s"',
      'config/config.toml: [rpc] timeout_broadcast_tx_commit = "-1s": expected a duration >= 0, such as "10s", "500ms" or "1m30s"',
    ],
    [
      'config.toml',
      '[instrumentation]\nprometheus_listen_addr = "26660"',
      'config/config.toml: [instrumentation] prometheus_listen_addr = "26660": expected an address host:port',
    ],
    [
      'config.toml',
      '[instrumentation]\nnamespace = "my-chain"',
      'config/config.toml: [instrumentation] namespace = "my-chain": expected a metric name prefix [A-Za-z_][A-Za-z0-9_]*',
    ],
    [
      'app.toml',
      '[json-rpc]\naddress = "localhost"',
      'config/app.toml: [json-rpc] address = "localhost": expected an address host:port',
    ],
    [
      'app.toml',
      '[json-rpc]\nws-address = "127.0.0.1:70000"',
      'config/app.toml: [json-rpc] ws-address = "127.0.0.1:70000": expected an address host:port',
    ],
    [
      'app.toml',
      '[json-rpc]\napi = "eth,clique"',
      'config/app.toml: [json-rpc] api = "eth,clique": expected distinct namespaces among eth, web3, net, txpool, debug, personal, admin, miner',
    ],
    [
      'app.toml',
      '[json-rpc]\napi = ["eth", "eth"]',
      'config/app.toml: [json-rpc] api = ["eth", "eth"]: expected distinct namespaces among eth, web3, net, txpool, debug, personal, admin, miner',
    ],
    [
      'app.toml',
      '[json-rpc]\napi = ""',
      'config/app.toml: [json-rpc] api = "": expected at least one namespace while enable = true',
    ],
    ['app.toml', '[json-rpc]\nfeehistory-cap = 0', 'config/app.toml: [json-rpc] feehistory-cap = 0: expected an integer from 1 to 9007199254740991'],
    ['app.toml', '[json-rpc]\ntxfee-cap = -0.5', 'config/app.toml: [json-rpc] txfee-cap = -0.5: expected a number >= 0'],
    [
      'app.toml',
      '[json-rpc]\nevm-timeout = "soon"',
      'config/app.toml: [json-rpc] evm-timeout = "soon": expected a duration >= 0, such as "10s", "500ms" or "1m30s"',
    ],
    ['gateway.toml', '[backend]\nkind = "proxy"', 'config/gateway.toml: [backend] kind = "proxy": expected one of embedded, upstream'],
    [
      'gateway.toml',
      '[devnet]\nblock_time = "0s"',
      'config/gateway.toml: [devnet] block_time = "0s": expected a duration > 0, such as "10s", "500ms" or "1m30s"',
    ],
    [
      'gateway.toml',
      '[devnet]\nchain_id = ""',
      'config/gateway.toml: [devnet] chain_id = "": expected a non-empty string of at most 50 characters',
    ],
    [
      'gateway.toml',
      '[devnet]\nfollow = "127.0.0.1:26657"',
      'config/gateway.toml: [devnet] follow = "127.0.0.1:26657": expected "" or a http:// or https:// URL',
    ],
    ['gateway.toml', '[devnet]\nmempool_size = 0', 'config/gateway.toml: [devnet] mempool_size = 0: expected an integer from 1 to 9007199254740991'],
    [
      'gateway.toml',
      '[queue]\nredis_url = "localhost:6379"',
      'config/gateway.toml: [queue] redis_url = "localhost:6379": expected "" or a redis:// or rediss:// URL',
    ],
    [
      'gateway.toml',
      '[cache]\nredis_url = "http://redis:6379"',
      'config/gateway.toml: [cache] redis_url = "http://redis:6379": expected "" or a redis:// or rediss:// URL',
    ],
    [
      'gateway.toml',
      '[cache]\nredis_timeout = "0s"',
      'config/gateway.toml: [cache] redis_timeout = "0s": expected a duration > 0, such as "10s", "500ms" or "1m30s"',
    ],
    [
      'gateway.toml',
      '[cache]\nredis_key_prefix = "rpc gw:"',
      'config/gateway.toml: [cache] redis_key_prefix = "rpc gw:": expected a key prefix without spaces',
    ],
    ['gateway.toml', '[plugins]\npaths = "a.js"', 'config/gateway.toml: [plugins] paths = "a.js": expected an array of strings'],
    [
      'gateway.toml',
      '[log]\nlevel = "verbose"',
      'config/gateway.toml: [log] level = "verbose": expected one of fatal, error, warn, info, debug, trace, silent',
    ],
  ])('%s %j', (file, text, message) => {
    const home = tempHome({ [file]: `${text}\n` });
    expect(errorOf(() => loadConfig({ home })).message).toBe(message);
  });

  it('reports the first bad key in file order', () => {
    const home = tempHome({ 'config.toml': '[rpc]\nmax_header_bytes = -1\nunsafe = 3\n' });
    expect(errorOf(() => loadConfig({ home })).message).toBe('config/config.toml: [rpc] unsafe = 3: expected true or false');
  });

  it('reports a known table that is not a table', () => {
    const home = tempHome({ 'config.toml': 'rpc = "tcp://127.0.0.1:26657"\n' });
    expect(errorOf(() => loadConfig({ home })).message).toBe(
      'config/config.toml: rpc = "tcp://127.0.0.1:26657": expected a table [rpc]',
    );
  });

  it('reports a TOML syntax error with its position', () => {
    const home = tempHome({ 'app.toml': '[json-rpc]\nenable = true\napi = [eth]\n' });
    expect(errorOf(() => loadConfig({ home })).message).toMatch(/^config\/app\.toml: invalid TOML at line 3, column \d+: \S/);
  });

  it('blames the file for a default that no longer fits a key set elsewhere', () => {
    const home = tempHome({ 'config.toml': '# every key at its default\n' });
    const error = errorOf(() => loadConfig({ home, flags: { 'rpc.experimental_subscription_buffer_size': '300' } }));
    expect(error.message).toBe(
      'config/config.toml: [rpc] experimental_websocket_write_buffer_size = 200 (default): expected an integer >= experimental_subscription_buffer_size (300)',
    );
  });
});

describe('a bad value in the environment or a flag', () => {
  it.each([
    [
      { RPCGW_RPC_MAX_BODY_BYTES: '-5' },
      'environment RPCGW_RPC_MAX_BODY_BYTES: [rpc] max_body_bytes = "-5": expected an integer from 0 to 9007199254740991',
    ],
    [{ RPCGW_RPC_UNSAFE: 'yes' }, 'environment RPCGW_RPC_UNSAFE: [rpc] unsafe = "yes": expected true or false'],
    [
      { RPCGW_JSON_RPC_API: 'eth,admin,foo' },
      'environment RPCGW_JSON_RPC_API: [json-rpc] api = "eth,admin,foo": expected distinct namespaces among eth, web3, net, txpool, debug, personal, admin, miner',
    ],
    [
      { RPCGW_DEVNET_BLOCK_TIME: '1' },
      'environment RPCGW_DEVNET_BLOCK_TIME: [devnet] block_time = "1": expected a duration > 0, such as "10s", "500ms" or "1m30s"',
    ],
    [
      { RPCGW_BACKEND_KIND: 'Embedded' },
      'environment RPCGW_BACKEND_KIND: [backend] kind = "Embedded": expected one of embedded, upstream',
    ],
  ])('%j', (env, message) => {
    expect(errorOf(() => loadConfig({ home: tempHome(), env })).message).toBe(message);
  });

  it.each([
    [{ 'rpc.laddr': 'localhost:26657' }, 'flag --rpc.laddr: [rpc] laddr = "localhost:26657": expected comma-separated tcp://host:port or unix:///path addresses'],
    [{ 'rpc.unsafe': 'maybe' }, 'flag --rpc.unsafe: [rpc] unsafe = "maybe": expected true or false'],
    [{ 'json-rpc.address': ':eth' }, 'flag --json-rpc.address: [json-rpc] address = ":eth": expected an address host:port'],
    [
      { 'json-rpc.api': 'eth,ots' },
      'flag --json-rpc.api: [json-rpc] api = "eth,ots": expected distinct namespaces among eth, web3, net, txpool, debug, personal, admin, miner',
    ],
    [{ 'log.level': 'loud' }, 'flag --log.level: [log] level = "loud": expected one of fatal, error, warn, info, debug, trace, silent'],
    [
      { 'rpc.max_body_bytes': '1e6' },
      'flag --rpc.max_body_bytes: [rpc] max_body_bytes = "1e6": expected an integer from 0 to 9007199254740991',
    ],
    [
      { 'rpc.max-body-bytes': 'x' },
      'flag --rpc.max_body_bytes: [rpc] max_body_bytes = "x": expected an integer from 0 to 9007199254740991',
    ],
    [
      { 'plugins.paths': '[1, 2]' },
      'flag --set plugins.paths: [plugins] paths = "[1, 2]": expected an array of strings',
    ],
    [
      { 'rpc.ladr': 'tcp://0.0.0.0:1' },
      'flag --set rpc.ladr = "tcp://0.0.0.0:1": expected a known <table>.<key>, e.g. rpc.laddr (see docs/configuration.md)',
    ],
    [
      { 'p2p.laddr': 'tcp://0.0.0.0:1' },
      'flag --set p2p.laddr = "tcp://0.0.0.0:1": expected a known <table>.<key>, e.g. rpc.laddr (see docs/configuration.md)',
    ],
  ])('%j', (flags, message) => {
    expect(errorOf(() => loadConfig({ home: tempHome(), flags })).message).toBe(message);
  });

  it('names the flag over the environment and the file it overrides', () => {
    const home = tempHome({ 'config.toml': '[rpc]\nmax_body_bytes = -1\n' });
    const error = errorOf(() =>
      loadConfig({ home, env: { RPCGW_RPC_MAX_BODY_BYTES: '-2' }, flags: { 'rpc.max_body_bytes': '-3' } }),
    );
    expect(error.message).toBe('flag --rpc.max_body_bytes: [rpc] max_body_bytes = "-3": expected an integer from 0 to 9007199254740991');
  });

  it('names a namespace registered by a plugin among those expected', () => {
    const error = errorOf(() =>
      loadConfig({ home: tempHome(), flags: { 'json-rpc.api': 'eth,foo' }, pluginNamespaces: () => ['ots'] }),
    );
    expect(error.message).toBe(
      'flag --json-rpc.api: [json-rpc] api = "eth,foo": expected distinct namespaces among eth, web3, net, txpool, debug, personal, admin, miner, ots',
    );
  });
});

describe('addresses', () => {
  it.each([
    'tcp://127.0.0.1:26657',
    'tcp://0.0.0.0:0',
    'tcp://[::]:26657',
    'tcp://localhost:26657, unix:///var/run/rpcgw.sock',
    'unix:///tmp/a.sock',
  ])('laddr %j is accepted', (laddr) => {
    expect(loadConfig({ home: tempHome(), flags: { 'rpc.laddr': laddr } }).rpc.laddr).toBe(laddr);
  });

  it.each(['127.0.0.1:8545', ':8545', '[::1]:8545', 'node.internal:8545', '0.0.0.0:0'])('address %j is accepted', (address) => {
    expect(loadConfig({ home: tempHome(), flags: { 'json-rpc.address': address } }).jsonRpc.address).toBe(address);
  });
});

describe('gas-cap takes what the node takes (a uint64)', () => {
  it.each([
    ['9223372036854775807', Number.MAX_SAFE_INTEGER],
    ['18446744073709551615', Number.MAX_SAFE_INTEGER],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['30000000', 30_000_000],
  ])('gas-cap = %s in app.toml', (value, read) => {
    expect(loadConfig({ home: tempHome({ 'app.toml': `[json-rpc]\ngas-cap = ${value}\n` }) }).jsonRpc['gas-cap']).toBe(read);
  });

  it('and from a flag', () => {
    expect(loadConfig({ home: tempHome(), flags: { 'json-rpc.gas-cap': '9223372036854775807' } }).jsonRpc['gas-cap']).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('states the real range past it', () => {
    expect(errorOf(() => loadConfig({ home: tempHome({ 'app.toml': '[json-rpc]\ngas-cap = 18446744073709551616\n' }) })).message).toBe(
      'config/app.toml: [json-rpc] gas-cap = 18446744073709551616: expected an integer from 0 to 18446744073709551615',
    );
  });

  it('an integer key past 2^53-1 states its range', () => {
    expect(errorOf(() => loadConfig({ home: tempHome({ 'config.toml': '[rpc]\nmax_body_bytes = 9223372036854775807\n' }) })).message).toBe(
      'config/config.toml: [rpc] max_body_bytes = 9223372036854775807: expected an integer from 0 to 9007199254740991',
    );
  });
});

describe('[upstream] settings: a table like the others, with environment and flag forms', () => {
  it('reads the file, the environment and --set', () => {
    const home = tempHome({ 'gateway.toml': '[upstream]\nmax_height_lag = 3\nrequest_timeout = "2s"\nbatch_max_wait = 0\n' });
    const config = loadConfig({ home, env: { RPCGW_UPSTREAM_RETRIES: '4' }, flags: { 'upstream.hedge_quantile': '0.5' } });
    expect(config.gateway.upstream.settings).toMatchObject({ max_height_lag: 3, request_timeout: 2_000, batch_max_wait: 0, retries: 4, hedge_quantile: 0.5 });
  });

  it.each([
    ['[upstream]\nrequest_timeout = "soon"\n', 'config/gateway.toml: [upstream] request_timeout = "soon": expected a duration > 0, such as "10s", "500ms" or "1m30s"'],
    ['[upstream]\nretries = -1\n', 'config/gateway.toml: [upstream] retries = -1: expected an integer from 0 to 10'],
    ['[upstream]\nhedge_quantile = 2\n', 'config/gateway.toml: [upstream] hedge_quantile = 2: expected a number from 0 to 1'],
  ])('%j: %s', (text, message) => {
    expect(errorOf(() => loadConfig({ home: tempHome({ 'gateway.toml': text }) })).message).toBe(message);
  });
});
