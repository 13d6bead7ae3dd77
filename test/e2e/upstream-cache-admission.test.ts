/**
 * The response cache's admission through a real gateway over anvil (docs/upstream.md#cache): a latest
 * read made once is never stored, however many such reads; one made again is stored from its second
 * answer and served from memory after, at the same head. Read from the gateway's own cache metrics.
 */
import { Anvil } from '../support/anvil';
import { call, get, post, startTestGateway, type TestGateway } from '../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';
import { Exposition } from '../unit/metrics/exposition';

jest.setTimeout(60_000);

let devnet: TestGateway;
let anvil: Anvil;
let gw: UpstreamGateway;

const scrape = async () => new Exposition((await get(gw.metricsUrl!, '/metrics')).text);

beforeAll(async () => {
  devnet = await startTestGateway({ 'devnet.block_time': '1h' });
  anvil = await Anvil.start();
  gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], {
    // anvil mines no block meanwhile: one head, so nothing leaves the cache but by its TTL.
    settings: { latest_ttl: '1m' },
    evm: [{ name: 'anvil', url: anvil.url }],
    flags: {
      'instrumentation.prometheus': 'true',
      'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
      'json-rpc.enable': 'true',
      'json-rpc.address': '127.0.0.1:0',
      'json-rpc.ws-address': '127.0.0.1:0',
    },
  });
  // A latest answer is kept only at a known head: one block, seen by the pool's health round.
  await call(anvil.url, 'evm_mine', []);
  const head = async () => (await scrape()).value('rpcgw_upstream_latest_height', { interface: 'evm', upstream: 'anvil' });
  for (let i = 0; i < 100 && (await head()) !== 1; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await head()).toBe(1);
});

afterAll(async () => {
  await gw?.close();
  await anvil?.stop();
  await devnet?.close();
});

const evm = async (m: Exposition) => ({
  hits: m.value('rpcgw_cache_hits_total', { interface: 'evm', tier: 'memory' }) ?? 0,
  misses: m.value('rpcgw_cache_misses_total', { interface: 'evm', tier: 'memory' }) ?? 0,
  entries: m.value('rpcgw_cache_entries', { interface: 'evm' }) ?? 0,
});
const balance = async (address: string) => {
  const res = await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] });
  expect(res.json).toMatchObject({ result: '0x0' });
};
const address = (n: number) => `0x${n.toString(16).padStart(40, 'a')}`;

it('stores none of many reads made once, and a read made again from its second answer', async () => {
  const start = await evm(await scrape());
  for (let n = 0; n < 50; n++) await balance(address(n));
  const once = await evm(await scrape());
  expect(once).toEqual({ hits: start.hits, misses: start.misses + 50, entries: start.entries });

  for (let i = 0; i < 3; i++) await balance(address(1_000));
  const again = await evm(await scrape());
  expect(again).toEqual({ hits: once.hits + 1, misses: once.misses + 2, entries: once.entries + 1 });
});
