/**
 * cosmos/evm's app.toml keys the gateway honours, each with its effect over a real socket:
 * `http-body-limit` (HTTP 413 past it, as go-ethereum answers), `filter-timeout` and
 * `filter-cleanup-interval` (an unpolled filter is gone).
 */
import { evmRpcFlags } from '../support/backends';
import { post, startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(120_000);

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    ...evmRpcFlags('eth,net,web3'),
    'json-rpc.http-body-limit': '2000',
    'json-rpc.filter-timeout': '1s',
    'json-rpc.filter-cleanup-interval': '100ms',
  });
});

afterAll(async () => {
  await gw?.close();
});

const rpc = async (method: string, params: unknown[]): Promise<any> => (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params })).json;

it('http-body-limit: a body past it gets 413, one under it is served', async () => {
  const big = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [], pad: 'x'.repeat(3000) };
  const refused = await fetch(gw.evmHttpUrl!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(big) });
  expect(refused.status).toBe(413);
  expect(await refused.text()).toMatch(/^content length too large \(\d+>2000\)/);
  expect((await rpc('eth_chainId', [])).result).toMatch(/^0x/);
});

it('filter-timeout: a filter not polled within it is removed', async () => {
  const id: string = (await rpc('eth_newBlockFilter', [])).result;
  expect((await rpc('eth_getFilterChanges', [id])).result).toBeInstanceOf(Array);
  // eth_getFilterLogs does not keep a filter alive: ask it until the sweeper has removed the filter.
  const alive = { code: -32000, message: `filter ${id} doesn't have a LogsSubscription type: got 5` };
  let error: unknown = alive;
  while (JSON.stringify(error) === JSON.stringify(alive)) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    error = (await rpc('eth_getFilterLogs', [id])).error;
  }
  expect(error).toEqual({ code: -32000, message: `filter ${id} not found` });
});
