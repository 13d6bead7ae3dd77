/**
 * A plugin's `ctx.events` in upstream mode: subscribing makes the gateway feed the query from the nodes
 * (one shared upstream subscription), so the plugin receives the node's events although no client
 * subscribed to the same query.
 */
import { join, resolve } from 'node:path';
import { evmRpcFlags } from '../../support/backends';
import { post, startTestGateway, type TestGateway } from '../../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../../support/upstream';

jest.setTimeout(60_000);

const PLUGIN = join(resolve(__dirname, '../../fixtures/plugins'), 'block-counter.js');
const call = async (gw: TestGateway, method: string) => (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params: [] })).json.result;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let devnet: TestGateway;
let gw: UpstreamGateway;

beforeAll(async () => {
  devnet = await startTestGateway({ 'devnet.block_time': '200ms' });
  gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], { flags: { ...evmRpcFlags('eth,blocks'), 'plugins.load': PLUGIN } });
});
afterAll(async () => {
  await gw?.close();
  await devnet?.close();
});

it("feeds a plugin's query from the nodes, with no client subscribed to it", async () => {
  expect(gw.backend.events.subscriptions()).toHaveLength(0);
  expect(await call(gw, 'blocks_watch')).toBe(true);
  expect(gw.backend.events.subscriptions().map((s) => s.query)).toContain("tm.event = 'NewBlock'");
  for (let i = 0; i < 100 && (await call(gw, 'blocks_seen')) < 2; i++) await sleep(50);
  expect(await call(gw, 'blocks_seen')).toBeGreaterThanOrEqual(2);
});
