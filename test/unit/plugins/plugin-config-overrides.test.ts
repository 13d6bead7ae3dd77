/**
 * A plugin's declared keys are set as the gateway's own are: in `[plugins.<name>]` of gateway.toml, over
 * it by `RPCGW_PLUGINS_<NAME>_<KEY>`, over both by `--set plugins.<name>.<key>=…`; a flag naming an
 * unknown key or plugin is refused in one line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/load-config';
import { loadPlugins } from '../../../src/plugins/loader';

const home = mkdtempSync(join(tmpdir(), 'rpcgw-plugin-keys-'));
mkdirSync(join(home, 'config'));
writeFileSync(join(home, 'config', 'gateway.toml'), '[plugins]\nload = ["plugins/ots"]\n\n[plugins.ots]\nmax_page_size = 5\n');
afterAll(() => rmSync(home, { recursive: true, force: true }));

const otsConfig = (env: Record<string, string>, flags: Record<string, string> = {}) => loadPlugins(loadConfig({ home, env, flags }).gateway.plugins, home)[0].config;

describe("a plugin's declared keys", () => {
  it('come from the file, then the environment, then flags', () => {
    expect(otsConfig({})).toEqual({ max_page_size: 5 });
    expect(otsConfig({ RPCGW_PLUGINS_OTS_MAX_PAGE_SIZE: '7' })).toEqual({ max_page_size: 7 });
    expect(otsConfig({ RPCGW_PLUGINS_OTS_MAX_PAGE_SIZE: '7' }, { 'plugins.ots.max_page_size': '9' })).toEqual({ max_page_size: 9 });
    // Flags match keys whatever the case and whether words are joined by "-" or "_", as the gateway's own do.
    expect(otsConfig({}, { 'plugins.ots.max-page-size': '3' })).toEqual({ max_page_size: 3 });
  });

  it('are checked whatever sets them', () => {
    expect(() => otsConfig({ RPCGW_PLUGINS_OTS_MAX_PAGE_SIZE: '0' })).toThrow(/^environment RPCGW_PLUGINS_OTS_MAX_PAGE_SIZE: \[plugins\.ots\] max_page_size = "0": expected an integer from 1 to 65535$/);
    expect(() => otsConfig({}, { 'plugins.ots.max_page_size': 'many' })).toThrow(/expected an integer from 1 to 65535$/);
  });

  it('refuse a flag of an unknown key or plugin, in one line', () => {
    expect(() => otsConfig({}, { 'plugins.ots.max_page_sise': '9' })).toThrow('flag --set plugins.ots.max_page_sise = "9": unknown key of [plugins.ots]; did you mean max_page_size?');
    expect(() => otsConfig({}, { 'plugins.explorer.max_page_size': '9' })).toThrow("flag --set plugins.explorer.max_page_size: expected a key of a loaded plugin's table (loaded: ots)");
  });
});
