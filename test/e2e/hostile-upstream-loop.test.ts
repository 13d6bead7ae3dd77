/**
 * Issue 24, finding 1, upstream mode: a gateway in front of an embedded devnet whose `eth_call`s loop
 * (`0x5b5f56`, JUMPDEST PUSH0 JUMP) to their deadline. The upstream is busy, not the gateway: while the
 * looping calls are in flight through it, `eth_blockNumber`, `eth_chainId` and `/health` are answered,
 * and the loops end with the upstream's timeout error. Assertions are about order, never durations.
 */
import { evmRpcFlags } from '../support/backends';
import { get, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';

jest.setTimeout(120_000);

let devnet: TestGateway;
let gw: UpstreamGateway;

beforeAll(async () => {
  devnet = await startTestGateway({ ...evmRpcFlags('eth,net,web3'), 'devnet.block_time': '200ms', 'json-rpc.evm-timeout': '3s', 'json-rpc.gas-cap': '10000000000' });
  await waitForHeight(devnet.url, 1);
  gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], {
    evm: [{ name: 'devnet', url: devnet.evmHttpUrl!, ws: devnet.evmWsUrl! }],
    settings: { health_check_interval: '1s' },
    // The gateway caps a call's gas too (its prepare hook): at the default 25M a loop could end out of
    // gas before the upstream's 3 s deadline on a fast machine. Both caps high, the deadline ends it.
    flags: { ...evmRpcFlags('eth,net,web3'), 'json-rpc.gas-cap': '10000000000' },
  });
});
afterAll(async () => {
  await gw?.close();
  await devnet?.close();
});

const evm = async (method: string, params: unknown[] = []) => (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params })).json;

it('answers eth_blockNumber while looping eth_calls are in flight through it to the upstream', async () => {
  const order: string[] = [];
  let finished = 0;
  const loops = [1, 2, 3].map(() =>
    evm('eth_call', [{ data: '0x5b5f56', gas: '0x2540be400' }, 'latest']).then((answer) => {
      finished++;
      order.push('loop');
      return answer;
    }),
  );
  // Time for the calls to reach the upstream; they run there for 3 s.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(BigInt((await evm('eth_blockNumber')).result)).toBeGreaterThan(0n);
  order.push('blockNumber');
  expect((await evm('eth_chainId')).result).toMatch(/^0x/);
  order.push('chainId');
  expect((await get(gw.url, '/health')).status).toBe(200);
  order.push('health');
  const inFlight = 3 - finished;
  const answers = await Promise.all(loops);
  for (const answer of answers) expect(answer.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 3s)' });
  expect(inFlight).toBe(3);
  expect(order).toEqual(['blockNumber', 'chainId', 'health', 'loop', 'loop', 'loop']);
});
