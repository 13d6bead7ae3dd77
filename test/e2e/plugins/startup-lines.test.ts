/**
 * Start-up as an operator sees it: `rpc-gateway plugins` (run as a process) runs the checks `start` runs and
 * exits 1 whenever `start` refuses, on every collision case: a route of a built-in category or of another
 * plugin and a method a plugin declares twice (listed as collisions), a namespace or category that is built
 * in or another plugin's, and one package loaded twice (the same one line from both). It marks
 * WebSocket-only methods, and a plugin whose `methods()` throws is one line naming it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startGateway } from '../../../src/bootstrap';
import { ConfigError } from '../../../src/config/config-error';
import { loadConfig } from '../../../src/config/load-config';
import { pluginNamespaces } from '../../../src/plugins/loader';

const ROOT = resolve(__dirname, '../../..');
const fixture = (name: string) => join(ROOT, 'test/fixtures/plugins', name);

jest.setTimeout(120_000);

interface Both {
  /** `rpc-gateway plugins`, run as a process: what it printed, and its exit code. */
  readonly listing: string;
  readonly refusal: string;
  readonly exitCode: number | null;
  /** What `start` threw (in process), if it refused. */
  readonly started?: Error;
}

/** Both commands over one configuration: `rpc-gateway plugins` as the operator runs it, and `start`. */
async function both(flags: Record<string, string>, files: Record<string, string> = {}): Promise<Both> {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-startup-lines-'));
  mkdirSync(join(home, 'config'));
  writeFileSync(join(home, 'config/gateway.toml'), '');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(home, name), text);
  const all = { 'rpc.laddr': 'tcp://127.0.0.1:0', 'json-rpc.enable': 'false', ...flags };
  try {
    const args = ['-r', join(ROOT, 'test/support/register-ts.js'), join(ROOT, 'src/main.ts'), 'plugins', '--home', home];
    for (const [key, value] of Object.entries(all)) args.push('--set', `${key}=${value}`);
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
    const listed = await new Promise<{ stdout: string; stderr: string; code: number | null }>((done) => {
      execFile(process.execPath, args, { cwd: ROOT, env }, (err, stdout, stderr) => done({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? null) : 0 }));
    });
    let started: Error | undefined;
    try {
      const gw = await startGateway(loadConfig({ home, flags: all, pluginNamespaces }), { logger: false });
      await gw.close();
    } catch (err) {
      started = err as Error;
    }
    return { listing: listed.stdout, refusal: listed.stderr.trim(), exitCode: listed.code, started };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** A plugin module's text (CommonJS). */
const pluginText = (name: string, rpc: 'evm' | 'node', namespace: string, methods: string[]) =>
  `module.exports = { name: '${name}', version: '1.0.0', apiVersion: 2, interface: '${rpc}', namespaces: ['${namespace}'], methods: () => [${methods
    .map((m) => `{ name: '${m}', group: '${namespace}', params: [], handler: () => 1 }`)
    .join(', ')}] };\n`;

describe('rpc-gateway plugins and start agree', () => {
  it('a route of a built-in category: listed as a collision, refused by start', async () => {
    const { listing, exitCode, started } = await both({ 'plugins.load': fixture('route-clash.js'), 'plugins.node_api': 'routes' });
    expect(listing).toBe(`routes 1.0.0 (node; routes) from ${fixture('route-clash.js')}\n  collides    status  (collides with info: start refuses it)\n`);
    expect(exitCode).toBe(1);
    expect(started).toBeInstanceOf(ConfigError);
    expect(started!.message).toBe('plugin routes: method status is already registered by info');
  });

  it("a route of a plugin loaded before: listed as a collision with that plugin, refused by start; WebSocket-only marked", async () => {
    const { listing, exitCode, started } = await both({ 'plugins.load': `plugins/cosmos,${fixture('cosmos-clash.js')}`, 'plugins.node_api': 'cosmos,clashing' });
    expect(listing).toBe(
      'cosmos 1.0.0 (node; cosmos) from plugins/cosmos\n  served      tx_by_evm_hash\n  served      evm_tx_hash\n' +
        `clashing 1.0.0 (node; clashing) from ${fixture('cosmos-clash.js')}\n` +
        '  served      clashing_ok\n  served      clashing_watch  (WebSocket only)\n  collides    tx_by_evm_hash  (collides with plugin cosmos: start refuses it)\n',
    );
    expect(exitCode).toBe(1);
    expect(started!.message).toBe('plugin clashing: method tx_by_evm_hash is already registered by plugin cosmos');
  });

  it('no collision: nothing refused by either', async () => {
    const { listing, exitCode, started } = await both({ 'plugins.load': 'plugins/cosmos', 'plugins.node_api': 'cosmos' });
    expect(listing).toContain('served      evm_tx_hash');
    expect(exitCode).toBe(0);
    expect(started).toBeUndefined();
  });

  it('a methods() that throws: one line naming the plugin, its file and the cause, from both', async () => {
    const { refusal, exitCode, started } = await both({ 'plugins.load': fixture('methods-throw.js') });
    const line = `plugin thrower: methods() threw: cannot read the greeting (${fixture('methods-throw.js')})`;
    expect([refusal, exitCode]).toEqual([line, 1]);
    expect(started).toBeInstanceOf(ConfigError);
    expect(started!.message).toBe(line);
  });

  it.each([
    ['an EVM namespace that is built in', { 'clash.js': pluginText('clash', 'evm', 'eth', ['eth_mine']) }, ['./clash.js'], {}],
    ['an EVM namespace of a plugin loaded before', { 'a.js': pluginText('a', 'evm', 'dup', ['dup_a']), 'b.js': pluginText('b', 'evm', 'dup', ['dup_b']) }, ['./a.js', './b.js'], {}],
    ['a node category that is built in', { 'info.js': pluginText('infos', 'node', 'info', ['more_info']) }, ['./info.js'], { 'plugins.node_api': 'info' }],
    ['a node category of a plugin loaded before', { 'a.js': pluginText('a', 'node', 'dup', ['dup_a']), 'b.js': pluginText('b', 'node', 'dup', ['dup_b']) }, ['./a.js', './b.js'], {}],
    ['one package loaded twice', {}, [fixture('both.ts'), fixture('both.ts')], {}],
  ])('%s: refused by both with the same line', async (_case, files, load, flags) => {
    const { refusal, exitCode, started } = await both({ 'plugins.load': load.join(','), ...flags }, files);
    expect(exitCode).toBe(1);
    expect(started).toBeInstanceOf(ConfigError);
    expect(refusal).toBe(started!.message);
  });

  it('a method a plugin declares twice: listed as a collision with itself, refused by start', async () => {
    const { listing, exitCode, started } = await both({ 'plugins.load': './twice.js', 'json-rpc.enable': 'true', 'json-rpc.api': 'eth,twice' }, { 'twice.js': pluginText('twice', 'evm', 'twice', ['twice_a', 'twice_a']) });
    expect(listing).toContain('  collides    twice_a  (collides with plugin twice: start refuses it)');
    expect(exitCode).toBe(1);
    expect(started!.message).toBe('plugin twice: method twice_a is already registered by plugin twice');
  });
});
