/**
 * Issue 24, finding 3 (traces): over real sockets on the embedded devnet, a client's trace `timeout` is
 * capped by [json-rpc] evm-timeout, and what a trace outputs by [json-rpc] trace-response-max-size
 * (go-ethereum's -32003 "response too large"), for debug_traceCall, debug_traceTransaction and
 * debug_traceBlock*. Over both backends: upstream mode sends the capped timeout to the node and
 * measures the node's answer.
 */
import { Wallet } from 'ethers';
import { BACKENDS, evmRpcFlags, startGatewayOver } from '../support/backends';
import { post, type TestGateway } from '../support/gateway';
import { testProvider } from '../support/ethers-provider';

/** The first account of the well-known development mnemonic, prefunded by the devnet. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** JUMPDEST PUSH0 JUMP: init code that loops until its gas is gone. */
const LOOP = '0x5b5f56';
const TOO_LARGE = { code: -32003, message: 'response too large' };

describe.each(BACKENDS)('%s', (kind) => {
let gw: TestGateway;
let loopTx: string;
let loopBlock: string;

beforeAll(async () => {
  gw = await startGatewayOver(kind, { ...evmRpcFlags('eth,net,web3,debug'), 'json-rpc.evm-timeout': '3s', 'json-rpc.trace-response-max-size': '100000' });
  const provider = testProvider(gw.evmHttpUrl!);
  // A mined transaction that fails out of gas: 70,000 gas (53,050 intrinsic) is a few thousand steps,
  // traced quickly by any node, its struct log still far over the 100 kB cap.
  const sent = await new Wallet(DEV_KEY, provider).sendTransaction({ data: LOOP, gasLimit: 70_000 });
  const receipt = await provider.waitForTransaction(sent.hash, 1, 15_000);
  loopTx = sent.hash;
  loopBlock = '0x' + receipt!.blockNumber.toString(16);
}, 60_000);

afterAll(async () => {
  await gw?.close();
});

async function rpc(method: string, params: unknown[]): Promise<any> {
  return (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params })).json;
}

describe('trace timeout', () => {
  // Uncapped, a 55 s timeout would outlast the test's own; no timing is asserted, so the other cases only check the answer.
  it.each([['55s'], ['0'], [undefined]])('a client timeout of %j runs no longer than evm-timeout', async (timeout) => {
    const res = await rpc('debug_traceCall', [{ data: LOOP, gas: '0x17d7840' }, 'latest', { tracer: 'callTracer', tracerConfig: { onlyTopCall: true }, timeout }]);
    expect(res.error).toEqual({ code: -32000, message: 'execution timeout' });
  });

  it('a shorter client timeout is kept', async () => {
    const res = await rpc('debug_traceCall', [{ data: LOOP, gas: '0x17d7840' }, 'latest', { tracer: 'callTracer', tracerConfig: { onlyTopCall: true }, timeout: '100ms' }]);
    expect(res.error).toEqual({ code: -32000, message: 'execution timeout' });
  });
});

describe('trace output', () => {
  it('debug_traceCall stops at trace-response-max-size', async () => {
    // 80,000 gas (53,050 of it intrinsic: a creation): ~7,000 steps, most of a megabyte of struct log, finished well within evm-timeout.
    expect((await rpc('debug_traceCall', [{ data: LOOP, gas: '0x13880' }, 'latest', {}])).error).toEqual(TOO_LARGE);
  });

  it('debug_traceTransaction and debug_traceBlock* stop at it too', async () => {
    expect((await rpc('debug_traceTransaction', [loopTx])).error).toEqual(TOO_LARGE);
    expect((await rpc('debug_traceBlockByNumber', [loopBlock])).error).toEqual(TOO_LARGE);
    const { result: block } = await rpc('eth_getBlockByNumber', [loopBlock, false]);
    expect((await rpc('debug_traceBlockByHash', [block.hash])).error).toEqual(TOO_LARGE);
  });

  it('a trace under the cap is answered', async () => {
    const res = await rpc('debug_traceTransaction', [loopTx, { tracer: 'callTracer' }]);
    expect(res.result).toMatchObject({ type: 'CREATE', error: 'out of gas' });
    expect((await rpc('debug_traceTransaction', [loopTx, { disableStack: true, timeout: '1s' }])).error).toEqual(TOO_LARGE);
  });
});
});
