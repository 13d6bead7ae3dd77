/**
 * A client's EVM execution gives the event loop turns while it runs and stops at its deadline: an
 * infinite loop (JUMPDEST PUSH0 JUMP) in eth_call, eth_estimateGas, eth_createAccessList and
 * debug_traceCall answers its timeout error, while timers fire, other calls are answered and blocks
 * are made meanwhile. The assertions are about order, never about durations.
 */
import { errorOf } from './harness';
import { LATEST, startEvmDevnet, type EvmHarness } from './evm-harness';

const LOOP = '0x5b5f56';
const LIMITS = { gasCap: 10_000_000_000n, timeoutMs: 1_000 };
const TIMEOUT = 'execution aborted (timeout = 1s)';

describe('embedded devnet: a looping call does not hold the event loop', () => {
  let h: EvmHarness;

  beforeAll(async () => {
    h = await startEvmDevnet();
  });
  afterAll(() => h.stop());

  /** Runs `looping` and, while it runs, a timer, a block and an eth_blockNumber; returns what settled in which order. */
  async function alongside(looping: () => Promise<unknown>): Promise<{ order: string[]; error: string; height: bigint }> {
    const order: string[] = [];
    const before = await h.evm.blockNumber();
    const call = errorOf(looping()).then((error) => {
      order.push('loop');
      return error;
    });
    // With a VM that never yields, this timer fires only after the loop's answer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    order.push('timer');
    await h.nextBlock();
    order.push('block');
    const height = await h.evm.blockNumber();
    order.push('blockNumber');
    expect(await h.evm.chainId()).toBe(9000n);
    order.push('chainId');
    const error = await call;
    return { order, error, height: height - before };
  }

  it('eth_call answers its timeout while timers, blocks and other calls go on', async () => {
    const { order, error, height } = await alongside(() => h.evm.call({ input: LOOP }, LATEST, LIMITS));
    expect(error).toBe(TIMEOUT);
    expect(order).toEqual(['timer', 'block', 'blockNumber', 'chainId', 'loop']);
    expect(height).toBe(1n);
  });

  it('a loop in a called contract (through CALL) yields too', async () => {
    // Deploys runtime code 0x5b5f56 and calls it.
    const init = '0x625b5f565f526003601df3';
    const hash = await h.send(h.wallets[0], { data: init });
    await h.nextBlock();
    const receipt = await h.evm.getTransactionReceipt(hash);
    const to = receipt?.contractAddress as string;
    expect(await h.evm.getCode(to, LATEST)).toBe(LOOP);
    const { order, error } = await alongside(() => h.evm.call({ to }, LATEST, LIMITS));
    expect(error).toBe(TIMEOUT);
    expect(order.at(-1)).toBe('loop');
  });

  it('eth_estimateGas, eth_createAccessList and debug_traceCall stop at their deadline and yield meanwhile', async () => {
    for (const looping of [
      () => h.evm.estimateGas({ input: LOOP }, LATEST, LIMITS),
      () => h.evm.createAccessList({ input: LOOP }, LATEST, LIMITS),
    ]) {
      const { order, error } = await alongside(looping);
      expect(error).toBe(TIMEOUT);
      expect(order.at(-1)).toBe('loop');
    }
    const traced = await alongside(() => h.evm.traceCall({ input: LOOP }, LATEST, { timeout: '1s' }, { gasCap: LIMITS.gasCap, timeoutMs: 0 }));
    expect(traced.error).toBe('execution timeout');
    expect(traced.order.at(-1)).toBe('loop');
  });

  it('three loops at once each answer their timeout, and the chain goes on', async () => {
    const { order, error } = await alongside(async () => {
      const errors = await Promise.all([1, 2, 3].map(() => errorOf(h.evm.call({ input: LOOP }, LATEST, LIMITS))));
      throw new Error([...new Set(errors)].join('; '));
    });
    expect(error).toBe(TIMEOUT);
    expect(order.at(-1)).toBe('loop');
  });
});
