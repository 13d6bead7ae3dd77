/**
 * Issue 24, finding 1: an `eth_call` of `0x5b5f56` (JUMPDEST PUSH0 JUMP, an infinite loop) must not freeze
 * the gateway. While three such calls run, over real sockets, `/health`, `eth_chainId` and
 * `eth_blockNumber` are answered and blocks are made; each loop answers go-ethereum's timeout error at
 * its deadline. The assertions are about order, never about durations.
 */
import { evmRpcFlags } from '../support/backends';
import { get, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';

/** Blocks every 200 ms; a call's deadline is 2 s, before any gas cap. */
const FLAGS = { ...evmRpcFlags('eth,net,web3'), 'devnet.block_time': '200ms', 'json-rpc.evm-timeout': '2s', 'json-rpc.gas-cap': '10000000000' };
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway(FLAGS);
  await waitForHeight(gw.url, 1);
});
afterAll(() => gw?.close());

const evm = async (method: string, params: unknown[]) => (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params })).json;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('answers other clients and keeps making blocks while looping calls run to their deadline', async () => {
  const order: string[] = [];
  const loops = [1, 2, 3].map(() =>
    evm('eth_call', [{ data: '0x5b5f56', gas: '0x2540be400' }, 'latest']).then((answer) => {
      order.push('loop');
      return answer;
    }),
  );
  await sleep(200);
  const health = await get(gw.url, '/health');
  expect(health.status).toBe(200);
  order.push('health');
  expect((await evm('eth_chainId', [])).result).toMatch(/^0x/);
  order.push('chainId');
  const first = BigInt((await evm('eth_blockNumber', [])).result);
  order.push('blockNumber');
  while (BigInt((await evm('eth_blockNumber', [])).result) <= first) await sleep(50);
  order.push('new block');
  const answers = await Promise.all(loops);
  for (const answer of answers) expect(answer.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 2s)' });
  expect(order).toEqual(['health', 'chainId', 'blockNumber', 'new block', 'loop', 'loop', 'loop']);
});

it('eth_estimateGas of the loop stops at the deadline too, and the gateway serves calls afterwards', async () => {
  const order: string[] = [];
  const looping = evm('eth_estimateGas', [{ data: '0x5b5f56' }]).then((answer) => {
    order.push('loop');
    return answer;
  });
  await sleep(200);
  expect((await get(gw.url, '/health')).status).toBe(200);
  order.push('health');
  expect((await looping).error).toEqual({ code: -32000, message: 'execution aborted (timeout = 2s)' });
  expect(order).toEqual(['health', 'loop']);
  expect((await evm('eth_call', [{ data: '0x600160005260206000f3' }, 'latest'])).result).toBe('0x' + '00'.repeat(31) + '01');
});
