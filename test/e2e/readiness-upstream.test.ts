/**
 * /readyz in upstream mode: ready while every configured pool has a healthy upstream, an EVM-only
 * gateway included (it has no node to ask `health`); not ready once a configured pool has none.
 */
import { UpstreamPools } from '../../src/backends/upstream/upstream.module';
import { Anvil } from '../support/anvil';
import { evmRpcFlags } from '../support/backends';
import { get } from '../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';

jest.setTimeout(60_000);

const METRICS = { 'instrumentation.prometheus': 'true', 'instrumentation.prometheus_listen_addr': '127.0.0.1:0' };

let anvil: Anvil;
let gw: UpstreamGateway;

beforeAll(async () => {
  anvil = await Anvil.start({});
  gw = await startUpstreamGateway([], { evm: [{ name: 'anvil', url: anvil.url, ws: '' }], flags: { ...evmRpcFlags('eth'), ...METRICS } });
});

afterAll(async () => {
  await gw?.close();
  await anvil?.stop();
});

it('an EVM-only gateway is ready while its anvil is healthy, and not once it is gone', async () => {
  const ready = await get(gw.metricsUrl!, '/readyz');
  expect(ready.status).toBe(200);
  await anvil.stop();
  const pool = gw.app.get(UpstreamPools).evm;
  // A healthy upstream is marked down after unhealthy_threshold (2) missed checks.
  await pool.checkHealth();
  await pool.checkHealth();
  const gone = await get(gw.metricsUrl!, '/readyz');
  expect(gone.status).toBe(503);
  expect(gone.text).toContain('backend');
});
