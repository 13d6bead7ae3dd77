/**
 * A plugin handler that blocks the event loop is detected: each call whose synchronous stretch passes the
 * threshold is counted in rpcgw_plugin_event_loop_blocks_total{plugin,method}, and the method is logged once.
 */
import { join, resolve } from 'node:path';
import { loadPlugins } from '../../../src/plugins/loader';
import { BLOCKING_THRESHOLD_MS, pluginMethods } from '../../../src/plugins/plugin-methods';
import type { PluginContext } from '../../../src/plugins/api';
import { post, startTestGateway, type TestGateway } from '../../support/gateway';
import { Exposition } from '../../unit/metrics/exposition';
import { EVM_ON, METRICS_ON } from './flags';

const FIXTURE = join(resolve(__dirname, '../../fixtures/plugins'), 'blocking.ts');

describe('a plugin method that blocks the event loop', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      'plugins.load': FIXTURE,
      ...EVM_ON,
      'json-rpc.api': 'eth,spin',
      ...METRICS_ON,
    });
  });
  afterAll(() => gw?.close());

  const blocks = async () => new Exposition(await (await fetch(`${gw.metricsUrl}/metrics`)).text()).value('rpcgw_plugin_event_loop_blocks_total', { plugin: 'spin', method: 'spin_for' });

  it('is counted per call past the threshold, and not below it', async () => {
    expect((await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method: 'spin_for', params: [1] })).json.result).toBe(1);
    expect(await blocks()).toBeUndefined();
    const over = BLOCKING_THRESHOLD_MS + 50;
    expect((await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 2, method: 'spin_for', params: [over] })).json.result).toBe(over);
    expect((await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 3, method: 'spin_for', params: [over] })).json.result).toBe(over);
    expect(await blocks()).toBe(2);
  });

  it('is logged once per method, with its name and how long it held the loop', () => {
    const [plugin] = loadPlugins({ load: [FIXTURE], node_api: [], tables: {} }, __dirname);
    const warnings: string[] = [];
    const logger = { debug: () => undefined, log: () => undefined, error: () => undefined, warn: (m: string) => void warnings.push(m) };
    const counted: string[] = [];
    const [spin] = pluginMethods(plugin, {} as PluginContext<unknown>, { logger, count: () => undefined, blocked: (m) => void counted.push(m) });
    const handler = spin.handler as unknown as (args: { ms: number }, ctx: never) => unknown;
    handler({ ms: BLOCKING_THRESHOLD_MS + 20 }, undefined as never);
    handler({ ms: BLOCKING_THRESHOLD_MS + 20 }, undefined as never);
    handler({ ms: 1 }, undefined as never);
    expect(counted).toEqual(['spin_for', 'spin_for']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^spin_for blocked the event loop for \d+ ms \(over 100 ms in one synchronous stretch; every other call waited\)/);
  });
});
