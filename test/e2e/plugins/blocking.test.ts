/**
 * A plugin handler that blocks the event loop is detected, in both backends: each call whose synchronous
 * stretch passes the threshold is counted in rpcgw_plugin_event_loop_blocks_total{plugin,method}, and the
 * method is logged once. With `[plugins] blocking_quarantine`, a call that held the loop that long takes
 * its method out of service until restart: later calls answer an error saying so, and
 * rpcgw_plugin_methods_out_of_service{plugin,method} is 1.
 */
import { join, resolve } from 'node:path';
import { loadPlugins } from '../../../src/plugins/loader';
import { BLOCKING_THRESHOLD_MS, pluginMethods } from '../../../src/plugins/plugin-methods';
import { ApplicationError, type PluginContext } from '../../../src/plugins/api';
import { BACKENDS, startGatewayOver } from '../../support/backends';
import { post, type TestGateway } from '../../support/gateway';
import { Exposition } from '../../unit/metrics/exposition';
import { EVM_ON, METRICS_ON } from './flags';

jest.setTimeout(90_000);

const FIXTURE = join(resolve(__dirname, '../../fixtures/plugins'), 'blocking.ts');
/** Spins well past the reporting threshold, and far past the quarantine. */
const OVER = BLOCKING_THRESHOLD_MS + 50;
const QUARANTINE_MS = 1_000;
const FAR_OVER = 2 * QUARANTINE_MS;

describe.each(BACKENDS)('a plugin method that blocks the event loop, %s backend', (kind) => {
  let gw: TestGateway;
  let spins = 0;

  beforeAll(async () => {
    gw = await startGatewayOver(kind, {
      'plugins.load': FIXTURE,
      ...EVM_ON,
      'json-rpc.api': 'eth,spin',
      ...METRICS_ON,
      'plugins.blocking_quarantine': `${QUARANTINE_MS}ms`,
    });
  });
  afterAll(() => gw?.close());

  const spin = async (ms: number) => (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: ++spins, method: 'spin_for', params: [ms] })).json;
  const metrics = async () => new Exposition(await (await fetch(`${gw.metricsUrl}/metrics`)).text());
  const labels = { plugin: 'spin', method: 'spin_for' };

  it('is counted per call past the threshold, and not below it', async () => {
    expect((await spin(1)).result).toBe(1);
    expect((await metrics()).value('rpcgw_plugin_event_loop_blocks_total', labels)).toBeUndefined();
    expect((await spin(OVER)).result).toBe(OVER);
    expect((await spin(OVER)).result).toBe(OVER);
    expect((await metrics()).value('rpcgw_plugin_event_loop_blocks_total', labels)).toBe(2);
    expect((await metrics()).value('rpcgw_plugin_methods_out_of_service', labels)).toBeUndefined();
  });

  it('is taken out of service past blocking_quarantine: that call is answered, later ones get the error', async () => {
    expect((await spin(FAR_OVER)).result).toBe(FAR_OVER);
    const refused = await spin(1);
    expect(refused.error).toEqual({
      code: -32000,
      message: expect.stringMatching(/^plugin method spin_for is out of service until the gateway restarts: it held the event loop for \d+ ms \(\[plugins\] blocking_quarantine = 1000 ms\)$/),
    });
    const m = await metrics();
    expect(m.value('rpcgw_plugin_methods_out_of_service', labels)).toBe(1);
    expect(m.value('rpcgw_plugin_event_loop_blocks_total', labels)).toBe(3);
    // The rest of the gateway serves on.
    expect((await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 99, method: 'eth_chainId', params: [] })).json.result).toMatch(/^0x/);
  });
});

describe('the log line', () => {
  it('is written once per method, with its name and how long it held the loop', () => {
    const [plugin] = loadPlugins({ load: [FIXTURE], tables: {} }, __dirname);
    const lines: string[] = [];
    const logger = { debug: () => undefined, log: () => undefined, error: (m: string) => void lines.push(`error ${m}`), warn: (m: string) => void lines.push(`warn ${m}`) };
    const counted: string[] = [];
    const [spin] = pluginMethods(plugin, {} as PluginContext<unknown>, { logger, count: () => undefined, blocked: (m) => void counted.push(m), quarantineMs: 60_000 });
    const handler = spin.handler as unknown as (args: { ms: number }, ctx: never) => unknown;
    handler({ ms: BLOCKING_THRESHOLD_MS + 20 }, undefined as never);
    handler({ ms: BLOCKING_THRESHOLD_MS + 20 }, undefined as never);
    handler({ ms: 1 }, undefined as never);
    expect(counted).toEqual(['spin_for', 'spin_for']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warn spin_for blocked the event loop for \d+ ms \(over 100 ms in one synchronous stretch; every other call waited\)/);
  });

  it('of a quarantine is written once, and the method runs no more', () => {
    const [plugin] = loadPlugins({ load: [FIXTURE], tables: {} }, __dirname);
    const lines: string[] = [];
    const logger = { debug: () => undefined, log: () => undefined, error: (m: string) => void lines.push(m), warn: () => undefined };
    const out: string[] = [];
    const [spin] = pluginMethods(plugin, {} as PluginContext<unknown>, { logger, count: () => undefined, quarantineMs: OVER - 10, quarantined: (m) => void out.push(m) });
    const handler = spin.handler as unknown as (args: { ms: number }, ctx: never) => unknown;
    expect(handler({ ms: OVER }, undefined as never)).toBe(OVER);
    expect(() => handler({ ms: 1 }, undefined as never)).toThrow(/^plugin method spin_for is out of service until the gateway restarts/);
    expect(() => handler({ ms: 1 }, undefined as never)).toThrow(ApplicationError);
    expect(out).toEqual(['spin_for']);
    expect(lines).toEqual([expect.stringMatching(/^spin_for taken out of service until restart: it held the event loop for \d+ ms \(\[plugins\] blocking_quarantine = 140 ms\)$/)]);
  });
});
