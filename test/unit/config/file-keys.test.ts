/**
 * Unknown tables and keys: an error in gateway.toml, a warning with the nearest name in a node's
 * config.toml and app.toml; the node's keys the gateway does not serve named in one line per file.
 */
import { resolveConfig } from '../../../src/config/load-config';
import { errorOf } from './error-of';
import { tempHome } from './temp-home';

const warningsOf = (files: Record<string, string>): readonly string[] => resolveConfig({ home: tempHome(files) }).warnings;
const gatewayError = (text: string): string => errorOf(() => resolveConfig({ home: tempHome({ 'gateway.toml': text }) })).message;

describe('gateway.toml', () => {
  it.each([
    ['[backend]\nknd = "upstream"\n', 'config/gateway.toml: [backend] knd = "upstream": unknown key; did you mean kind?'],
    ['[devnett]\nblock_time = "2s"\n', 'config/gateway.toml: [devnett]: unknown table; did you mean [devnet]?'],
    ['blocktime = "2s"\n', 'config/gateway.toml: blocktime = "2s": unknown key at the top of the file; did you mean [devnet] block_time?'],
    ['[devnet]\nblocktime = "2s"\n', 'config/gateway.toml: [devnet] blocktime = "2s": unknown key; did you mean block_time?'],
    ['[upstream]\nretrys = 3\n', 'config/gateway.toml: [upstream] retrys = 3: unknown key; did you mean retries?'],
    ['[[upstream.node]]\nname = "a"\nurl = "http://a:26657"\nwieght = 2\n', 'config/gateway.toml: [[upstream.node]] #1 wieght = 2: unknown key; did you mean weight?'],
    ['[rpc]\nladdr = "tcp://0.0.0.0:1"\n', 'config/gateway.toml: [rpc]: unknown table'],
    ['[log]\ncolour = true\n', 'config/gateway.toml: [log] colour = true: unknown key'],
  ])('%j stops start-up: %s', (text, message) => {
    expect(gatewayError(text)).toBe(message);
  });

  it('a rate rule names the nearest key', () => {
    expect(gatewayError('[[access.rate]]\nname = "a"\nmethods = "eth_call"\nlimit = 1\nwindw = "1s"\n')).toMatch(/windw = "1s": unknown key; did you mean window\?$/);
  });

  it("accepts every known table, a plugin's own table and the upstream lists", () => {
    const text = '[devnet]\nblock_time = "2s"\n[plugins.cosmos]\nanything = 1\n[upstream]\nretries = 1\n[[upstream.evm]]\nname = "e"\nurl = "http://e:8545"\nws = ""\n';
    expect(resolveConfig({ home: tempHome({ 'gateway.toml': text }) }).warnings).toEqual([]);
  });
});

describe("a node's config.toml and app.toml", () => {
  it.each([
    ['config.toml', '[rpc]\nmax_body_byte = 5\n', 'config/config.toml: [rpc] max_body_byte: unknown key, ignored; did you mean max_body_bytes?'],
    ['app.toml', '[json-rpc]\ngas_cap = 0\n', 'config/app.toml: [json-rpc] gas_cap: unknown key, ignored; did you mean gas-cap?'],
    ['app.toml', '[json-rpc]\nlog-cap = 5\n', 'config/app.toml: [json-rpc] log-cap: unknown key, ignored; did you mean logs-cap?'],
    ['app.toml', '[json_rpc]\nenable = false\n', 'config/app.toml: [json_rpc]: unknown table, ignored; did you mean [json-rpc]?'],
    ['config.toml', '[instrumentaton]\nprometheus = true\n', 'config/config.toml: [instrumentaton]: unknown table, ignored; did you mean [instrumentation]?'],
  ])('%s %j warns: %s', (file, text, warning) => {
    expect(warningsOf({ [file]: text })).toEqual([warning]);
  });

  it("accepts the node's own tables and top-level keys silently", () => {
    const config = 'moniker = "n"\n[p2p]\nladdr = "x"\n[mempool]\nsize = 1\n[consensus]\ntimeout_commit = "1s"\n';
    const app = 'pruning = "default"\n[api]\nenable = false\n[grpc]\nenable = true\n[evm.mempool]\nprice-limit = 1\n';
    expect(warningsOf({ 'config.toml': config, 'app.toml': app })).toEqual([]);
  });

  it('names the node keys it does not serve in one line per file', () => {
    const warnings = warningsOf({
      'config.toml': '[rpc]\ngrpc_laddr = ""\npprof_laddr = "localhost:6060"\n',
      'app.toml': '[json-rpc]\nmetrics-address = "0.0.0.0:6065"\nenable-indexer = false\n[evm]\ntracer = ""\n',
    });
    expect(warnings).toEqual([
      'config.toml [rpc]: grpc_laddr, pprof_laddr are node settings rpc-gateway does not serve',
      'app.toml [json-rpc]: metrics-address, enable-indexer; [evm]: tracer are node settings rpc-gateway does not serve',
    ]);
  });
});
