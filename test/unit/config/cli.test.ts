import { homedir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { parseCli } from '../../../src/config/cli';
import { CONFIG_TABLES } from '../../../src/config/config-tables';

const VERSION: string = (require('../../../package.json') as { version: string }).version;

function run(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { writeOut: (s: string) => out.push(s), writeErr: (s: string) => err.push(s) };
  try {
    return { invocation: parseCli(['node', 'rpc-gateway', ...args], env, io), out: out.join(''), err: err.join('') };
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return { error, out: out.join(''), err: err.join('') };
  }
}

describe('rpc-gateway start', () => {
  it('defaults the home to ~/.rpc-gateway, with no flags', () => {
    expect(run(['start']).invocation).toEqual({ command: 'start', home: join(homedir(), '.rpc-gateway'), flags: {} });
  });

  it('takes the home from RPCGW_HOME, and --home over it', () => {
    expect(run(['start'], { RPCGW_HOME: '/srv/gw' }).invocation?.home).toBe('/srv/gw');
    expect(run(['start', '--home', '/opt/gw'], { RPCGW_HOME: '/srv/gw' }).invocation?.home).toBe('/opt/gw');
    expect(run(['start', '--home=~/gw']).invocation?.home).toBe(join(homedir(), 'gw'));
    expect(run(['start', '--home', 'rel']).invocation?.home).toBe(join(process.cwd(), 'rel'));
  });

  it('turns every named flag into a dotted key', () => {
    const { invocation } = run([
      'start',
      '--rpc.laddr', 'tcp://0.0.0.0:26657',
      '--rpc.unsafe',
      '--json-rpc.enable=false',
      '--json-rpc.address', '0.0.0.0:8545',
      '--json-rpc.ws-address=0.0.0.0:8546',
      '--json-rpc.api', 'eth,net',
      '--devnet.ephemeral',
      '--devnet.block_time', '200ms',
      '--devnet.follow', 'http://10.0.0.1:26657',
      '--backend.kind', 'embedded',
      '--log.level', 'debug',
      '--log.format', 'json',
      '--instrumentation.prometheus', 'true',
    ]);
    expect(invocation?.flags).toEqual({
      'rpc.laddr': 'tcp://0.0.0.0:26657',
      'rpc.unsafe': 'true',
      'json-rpc.enable': 'false',
      'json-rpc.address': '0.0.0.0:8545',
      'json-rpc.ws-address': '0.0.0.0:8546',
      'json-rpc.api': 'eth,net',
      'devnet.ephemeral': 'true',
      'devnet.block_time': '200ms',
      'devnet.follow': 'http://10.0.0.1:26657',
      'backend.kind': 'embedded',
      'log.level': 'debug',
      'log.format': 'json',
      'instrumentation.prometheus': 'true',
    });
  });

  it('reads a boolean flag alone as true and with =false as false', () => {
    expect(run(['start', '--rpc.unsafe']).invocation?.flags).toEqual({ 'rpc.unsafe': 'true' });
    expect(run(['start', '--rpc.unsafe=false']).invocation?.flags).toEqual({ 'rpc.unsafe': 'false' });
    expect(run(['start', '--rpc.unsafe', '--home', '/h']).invocation).toMatchObject({
      home: '/h',
      flags: { 'rpc.unsafe': 'true' },
    });
  });

  it('sets any key with --set, repeatedly, and a named flag wins over --set', () => {
    const { invocation } = run([
      'start',
      '--set', 'rpc.max_body_bytes=2000000',
      '--set=json-rpc.ws-origins=a.example,b.example',
      '--set', 'devnet.follow=',
      '--set', 'rpc.laddr=tcp://1.1.1.1:1',
      '--rpc.laddr', 'tcp://2.2.2.2:2',
    ]);
    expect(invocation?.flags).toEqual({
      'rpc.max_body_bytes': '2000000',
      'json-rpc.ws-origins': 'a.example,b.example',
      'devnet.follow': '',
      'rpc.laddr': 'tcp://2.2.2.2:2',
    });
  });

  it('refuses a --set without table.key=value', () => {
    const { error, err } = run(['start', '--set', 'max_body_bytes']);
    expect(error?.exitCode).toBe(1);
    expect(err).toContain("argument 'max_body_bytes' is invalid. expected <table>.<key>=<value>");
  });

  it('refuses an unknown option and extra arguments', () => {
    expect(run(['start', '--rpc.bogus', '1']).err).toContain("unknown option '--rpc.bogus'");
    expect(run(['start', 'now']).error?.exitCode).toBe(1);
  });

  it('shows the usage and fails without a command', () => {
    const { error, err } = run([]);
    expect(error?.exitCode).toBe(1);
    expect(err).toContain('start [options]');
  });
});

describe('--help', () => {
  it('lists every flag of start with a one-line description, and exits 0', () => {
    const { error, out } = run(['start', '--help']);
    expect(error?.code).toBe('commander.helpDisplayed');
    expect(error?.exitCode).toBe(0);
    const flags = [
      '--home <dir>',
      '--rpc.laddr <addrs>',
      '--rpc.unsafe [true|false]',
      '--json-rpc.enable [true|false]',
      '--json-rpc.address <host:port>',
      '--json-rpc.ws-address <host:port>',
      '--json-rpc.api <a,b,…>',
      '--devnet.ephemeral [true|false]',
      '--devnet.block_time <duration>',
      '--devnet.follow <url>',
      '--backend.kind <kind>',
      '--log.level <level>',
      '--log.format <format>',
      '--instrumentation.prometheus [true|false]',
      '--set <table.key=value>',
    ];
    for (const flag of flags) expect(out).toMatch(new RegExp(`^  ${flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +\\S`, 'm'));
    expect(out).toContain(CONFIG_TABLES.rpc.keys.unsafe.doc);
    expect(out).toContain('RPCGW_<TABLE>_<KEY>');
  });

  it('groups the flags by topic, each with its built-in default', () => {
    const { out } = run(['start', '--help']);
    const headings = [...out.matchAll(/^(\S[^\n]*):$/gm)].map((m) => m[1]);
    expect(headings).toEqual([
      'General',
      'Node RPC (CometBFT [rpc], config.toml)',
      'EVM JSON-RPC ([json-rpc], app.toml)',
      'TLS of the EVM JSON-RPC ([tls], app.toml)',
      'Backend: the embedded devnet or upstream nodes ([backend], gateway.toml)',
      'Embedded devnet ([devnet], gateway.toml)',
      'Metrics and probes ([instrumentation], config.toml)',
      'Logging ([log], gateway.toml)',
    ]);
    /** The block of help text under a heading. */
    const group = (heading: string) => out.split(`${heading}:\n`)[1].split('\n\n')[0];
    expect(group('General')).toMatch(/--home <dir>[\s\S]*--set <table\.key=value>[\s\S]*-h, --help/);
    expect(group('Node RPC (CometBFT [rpc], config.toml)')).toMatch(/--rpc\.laddr <addrs> .*\(default: tcp:\/\/127\.0\.0\.1:26657\)/);
    expect(group('Node RPC (CometBFT [rpc], config.toml)')).toMatch(/--rpc\.unsafe \[true\|false\] .*\(default: false\)/);
    expect(group('EVM JSON-RPC ([json-rpc], app.toml)')).toMatch(/--json-rpc\.api <a,b,…> .*\(default: eth,net,web3\)/);
    expect(group('EVM JSON-RPC ([json-rpc], app.toml)')).toMatch(/--json-rpc\.address <host:port> .*\(default: 127\.0\.0\.1:8545\)/);
    expect(group('Backend: the embedded devnet or upstream nodes ([backend], gateway.toml)')).toMatch(/--backend\.kind <kind> .*\(default: embedded\)/);
    expect(group('Embedded devnet ([devnet], gateway.toml)')).toMatch(/--devnet\.block_time <duration> .*\(default: 1s\)/);
    expect(group('Embedded devnet ([devnet], gateway.toml)')).toMatch(/--devnet\.follow <url> .*\(default: none\)/);
    expect(group('Metrics and probes ([instrumentation], config.toml)')).toMatch(/--instrumentation\.prometheus \[true\|false\] .*\(default: false\)/);
    expect(group('Logging ([log], gateway.toml)')).toMatch(/--log\.level <level> .*\(default: info\)/);
    expect(group('Logging ([log], gateway.toml)')).toMatch(/--log\.format <format> .*\(default: auto\)/);
    expect(out).toContain('[[upstream.node]]');
  });

  it('lists the start command at the top level', () => {
    const { error, out } = run(['--help']);
    expect(error?.exitCode).toBe(0);
    expect(out).toMatch(/^\s+start \[options\]\s+Start the gateway/m);
  });
});

describe('--version', () => {
  it("prints package.json's version and exits 0", () => {
    for (const flag of ['--version', '-v']) {
      const { error, out } = run([flag]);
      expect(error?.code).toBe('commander.version');
      expect(error?.exitCode).toBe(0);
      expect(out).toBe(`${VERSION}\n`);
    }
  });
});

describe('rpc-gateway plugins', () => {
  it('takes --home and --set', () => {
    expect(run(['plugins', '--home', '/h', '--set', 'plugins.load=./p']).invocation).toEqual({ command: 'plugins', home: '/h', flags: { 'plugins.load': './p' } });
  });

  it("takes start's flags, --json-rpc.api among them", () => {
    expect(run(['plugins', '--home', '/h', '--json-rpc.api', 'eth,hello', '--rpc.unsafe', 'true']).invocation).toEqual({
      command: 'plugins',
      home: '/h',
      flags: { 'json-rpc.api': 'eth,hello', 'rpc.unsafe': 'true' },
    });
  });
});

describe('rpc-gateway config reference', () => {
  it('prints the reference, or names the docs file to write it into', () => {
    expect(run(['config', 'reference']).invocation).toMatchObject({ command: 'config-reference' });
    expect(run(['config', 'reference']).invocation?.docs).toBeUndefined();
    expect(run(['config', 'reference', '--docs', 'docs/configuration.md']).invocation?.docs).toBe(join(process.cwd(), 'docs', 'configuration.md'));
  });
});
