import { AbiCoder } from 'ethers';
import { ApplicationError } from '../../../src/rpc/errors';
import { compileProbe, EvmHarness, GWEI, LATEST, NO_LIMITS, at, startEvmDevnet } from './evm-harness';

/** The ApplicationError a call fails with. */
async function failure(call: Promise<unknown>): Promise<ApplicationError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ApplicationError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

type Obj = Record<string, any>;

describe('embedded devnet: eth_call and eth_estimateGas', () => {
  let h: EvmHarness;
  let probe: string;
  let deployedAt: bigint;
  const { abi } = compileProbe();
  const input = (name: string, args: unknown[] = []): string => abi.encodeFunctionData(name, args);

  beforeAll(async () => {
    h = await startEvmDevnet();
    probe = await h.deployProbe(h.wallets[0], 40n);
    deployedAt = h.backend.devnet.latestHeight;
    await h.send(h.wallets[1], { to: probe, data: input('bump', ['a']) });
    await h.send(h.wallets[1], { to: probe, data: input('bump', ['b']) });
    await h.nextBlock();
  });
  afterAll(() => h.stop());

  it('calls a contract at the latest and at a past block', async () => {
    expect(BigInt(await h.evm.call({ to: probe, input: input('count') }, LATEST, NO_LIMITS))).toBe(42n);
    expect(BigInt(await h.evm.call({ to: probe, input: input('count') }, at(deployedAt), NO_LIMITS))).toBe(40n);
    const credits = await h.evm.call({ to: probe, input: input('credits', [h.wallets[1].address]) }, LATEST, NO_LIMITS);
    expect(BigInt(credits)).toBe(2n);
    // A call that changes state leaves no trace of it.
    const bumped = await h.evm.call({ from: h.wallets[2].address.toLowerCase(), to: probe, input: input('bump', ['dry']) }, LATEST, NO_LIMITS);
    expect(BigInt(bumped)).toBe(43n);
    expect(BigInt(await h.evm.call({ to: probe, input: input('count') }, LATEST, NO_LIMITS))).toBe(42n);
    // A call to an account without code returns nothing.
    expect(await h.evm.call({ to: '0x' + '12'.repeat(20) }, LATEST, NO_LIMITS)).toBe('0x');
  });

  it('fails a revert with a reason as code 3 with the data', async () => {
    const err = await failure(h.evm.call({ to: probe, input: input('fail') }, LATEST, NO_LIMITS));
    expect(err.code).toBe(3);
    expect(err.message).toBe('execution reverted: probe says no');
    expect(err.data).toBe('0x08c379a0' + AbiCoder.defaultAbiCoder().encode(['string'], ['probe says no']).slice(2));
    const custom = await failure(h.evm.call({ to: probe, input: input('failCustom') }, LATEST, NO_LIMITS));
    expect(custom.code).toBe(3);
    expect(custom.message).toBe('execution reverted');
    expect(custom.data).toBe(abi.encodeErrorResult('Custom', [7n]));
  });

  it('stops a runaway loop at the timeout', async () => {
    const started = Date.now();
    const err = await failure(h.evm.call({ to: probe, input: input('spin') }, LATEST, { gasCap: 10_000_000_000n, timeoutMs: 150 }));
    expect(err.code).toBe(-32000);
    expect(err.message).toBe('execution aborted (timeout = 150ms)');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('caps the gas of calls and estimates', async () => {
    const err = await failure(h.evm.call({ to: probe, input: input('spin') }, LATEST, { gasCap: 100_000n, timeoutMs: 5000 }));
    expect(err.code).toBe(-32000);
    expect(err.message).toBe('out of gas');
    // The cap also bounds an explicit gas.
    const capped = await failure(h.evm.call({ to: probe, input: input('spin'), gas: 5_000_000n }, LATEST, { gasCap: 50_000n, timeoutMs: 5000 }));
    expect(capped.message).toBe('out of gas');
    const estimate = await failure(h.evm.estimateGas({ to: probe, input: input('spin') }, LATEST, { gasCap: 100_000n, timeoutMs: 5000 }));
    expect(estimate.message).toBe('gas required exceeds allowance (100000)');
    expect(estimate.code).toBe(-32000);
    const low = await failure(h.evm.call({ to: probe, input: input('count'), gas: 21_100n }, LATEST, NO_LIMITS));
    expect(low.message).toBe('out of gas');
    const intrinsic = await failure(h.evm.call({ to: probe, input: input('count'), gas: 20_000n }, LATEST, NO_LIMITS));
    expect(intrinsic.message).toBe('intrinsic gas too low: have 20000, want 21064');
  });

  it('estimates the lowest gas that succeeds', async () => {
    const from = h.wallets[3].address.toLowerCase();
    expect(await h.evm.estimateGas({ from, to: '0x' + '34'.repeat(20), value: 1n }, LATEST, NO_LIMITS)).toBe(21000n);
    const args = { from, to: probe, input: input('bump', ['estimate me']) };
    const gas = await h.evm.estimateGas(args, LATEST, NO_LIMITS);
    expect(gas).toBeGreaterThan(21000n);
    await h.evm.call({ ...args, gas }, LATEST, NO_LIMITS);
    await expect(h.evm.call({ ...args, gas: gas - 1n }, LATEST, NO_LIMITS)).rejects.toThrow('out of gas');
    // A tx sent with the estimate is mined successfully.
    const hash = await h.send(h.wallets[3], { to: probe, data: args.input, gasLimit: gas });
    await h.nextBlock();
    expect(((await h.evm.getTransactionReceipt(hash)) as Obj).status).toBe('0x1');
  });

  it('fails an estimate of a reverting call as the call does', async () => {
    const err = await failure(h.evm.estimateGas({ to: probe, input: input('fail') }, LATEST, NO_LIMITS));
    expect(err.code).toBe(3);
    expect(err.message).toBe('execution reverted: probe says no');
  });

  it('checks fees and funds when the call pays for gas', async () => {
    const poor = '0x' + '77'.repeat(20);
    const err = await failure(h.evm.call({ from: poor, to: probe, input: input('count'), gasPrice: 2n * GWEI, gas: 100_000n }, LATEST, NO_LIMITS));
    expect(err.message).toBe('insufficient funds for gas * price + value: address 0x7777777777777777777777777777777777777777 have 0 want 200000000000000');
    const both = await failure(h.evm.call({ to: probe, gasPrice: GWEI, maxFeePerGas: GWEI }, LATEST, NO_LIMITS));
    expect(both.message).toBe('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
    const under = await failure(h.evm.call({ from: poor, to: probe, maxFeePerGas: 1n }, LATEST, NO_LIMITS));
    expect(under.message).toMatch(/^max fee per gas less than block base fee: address 0x7777777777777777777777777777777777777777, maxFeePerGas: 1, baseFee: \d+$/);
    const value = await failure(h.evm.estimateGas({ from: poor, to: probe, value: 1n, gasPrice: GWEI }, LATEST, NO_LIMITS));
    expect(value.message).toBe('insufficient funds for transfer');
    // Without fees, a call from an empty account runs (it pays nothing).
    expect(BigInt(await h.evm.call({ from: poor, to: probe, input: input('count') }, LATEST, NO_LIMITS))).toBe(43n);
  });
});
