/**
 * Start-up as an operator sees it: `rpc-gateway plugins` runs the checks `start` runs (a route that collides
 * with a built-in one or another plugin's is listed as a collision, and `start` refuses it), marks
 * WebSocket-only and unsafe methods, and a plugin whose `methods()` throws is one line naming it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startGateway } from '../../../src/bootstrap';
import { ConfigError } from '../../../src/config/config-error';
import { loadConfig } from '../../../src/config/load-config';
import { loadPlugins, pluginNamespaces } from '../../../src/plugins/loader';
import { formatPluginListing, listingCollides, listPlugins } from '../../../src/plugins/plugin-listing';

const ROOT = resolve(__dirname, '../../..');
const fixture = (name: string) => join(ROOT, 'test/fixtures/plugins', name);

/** Both commands over one configuration: what `plugins` prints and what `start` does with it. */
async function both(flags: Record<string, string>): Promise<{ listing?: string; collides?: boolean; listed?: Error; started?: Error }> {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-startup-lines-'));
  mkdirSync(join(home, 'config'));
  writeFileSync(join(home, 'config/gateway.toml'), '');
  const all = { 'rpc.laddr': 'tcp://127.0.0.1:0', 'json-rpc.enable': 'false', ...flags };
  const out: { listing?: string; collides?: boolean; listed?: Error; started?: Error } = {};
  try {
    const config = loadConfig({ home, flags: all, pluginNamespaces });
    try {
      const listing = listPlugins(loadPlugins(config.gateway.plugins, config.home), config);
      out.listing = formatPluginListing(listing);
      out.collides = listingCollides(listing);
    } catch (err) {
      out.listed = err as Error;
    }
    try {
      const gw = await startGateway(config, { logger: false });
      await gw.close();
    } catch (err) {
      out.started = err as Error;
    }
    return out;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe('rpc-gateway plugins and start agree', () => {
  it('a route of a built-in category: listed as a collision, refused by start', async () => {
    const { listing, collides, started } = await both({ 'plugins.load': fixture('route-clash.js'), 'plugins.node_api': 'routes' });
    expect(listing).toBe(`routes 1.0.0 (node; routes) from ${fixture('route-clash.js')}\n  collides    status  (collides with info: start refuses it)\n`);
    expect(collides).toBe(true);
    expect(started).toBeInstanceOf(ConfigError);
    expect(started!.message).toBe('plugin routes: method status is already registered by info');
  });

  it("a route of a plugin loaded before: listed as a collision with that plugin, refused by start; WebSocket-only marked", async () => {
    const { listing, collides, started } = await both({ 'plugins.load': `plugins/cosmos,${fixture('cosmos-clash.js')}`, 'plugins.node_api': 'cosmos,clashing' });
    expect(listing).toBe(
      'cosmos 1.0.0 (node; cosmos) from plugins/cosmos\n  served      tx_by_evm_hash\n  served      evm_tx_hash\n' +
        `clashing 1.0.0 (node; clashing) from ${fixture('cosmos-clash.js')}\n` +
        '  served      clashing_ok\n  served      clashing_watch  (WebSocket only)\n  collides    tx_by_evm_hash  (collides with plugin cosmos: start refuses it)\n',
    );
    expect(collides).toBe(true);
    expect(started!.message).toBe('plugin clashing: method tx_by_evm_hash is already registered by plugin cosmos');
  });

  it('no collision: nothing refused by either', async () => {
    const { listing, collides, started } = await both({ 'plugins.load': 'plugins/cosmos', 'plugins.node_api': 'cosmos' });
    expect(listing).toContain('served      evm_tx_hash');
    expect(collides).toBe(false);
    expect(started).toBeUndefined();
  });

  it('a methods() that throws: one line naming the plugin, its file and the cause, from both', async () => {
    const { listed, started } = await both({ 'plugins.load': fixture('methods-throw.js') });
    const line = `plugin thrower: methods() threw: cannot read the greeting (${fixture('methods-throw.js')})`;
    expect(listed).toBeInstanceOf(ConfigError);
    expect(listed!.message).toBe(line);
    expect(started).toBeInstanceOf(ConfigError);
    expect(started!.message).toBe(line);
  });
});
