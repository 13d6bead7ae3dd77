/**
 * eth_estimateGas as go-ethereum does it: the highest gas allowed (the call's gas, else the block gas
 * limit; at most what the sender's balance pays for at its fee cap; at most the RPC gas cap) must let
 * the call succeed, then a binary search finds the lowest gas that does. The search starts from the gas
 * the first run used and first tries go-ethereum's optimistic guess (gas used + refund + call stipend,
 * × 64/63).
 */
import { ApplicationError } from '../../../rpc/errors';
import type { BlockRef, TransactionArgs } from '../../../evm-rpc/evm-types';
import { isRevert } from '../../../devnet/app/evm/vm-errors';
import { callDeadline, throwIfFailed, type CallOptions, type CallRunner } from './call-runner';
import { senderOf } from './call-message';

const TX_GAS = 21000n;
const CALL_STIPEND = 2300n;

export class GasEstimator {
  constructor(private readonly runner: CallRunner) {}

  async estimate(args: TransactionArgs, ref: BlockRef, options: CallOptions): Promise<bigint> {
    const ctx = await this.runner.context(ref);
    const deadline = callDeadline(options.timeoutMs);
    let hi = args.gas !== undefined && args.gas >= TX_GAS ? args.gas : ctx.env.gasLimit;
    const feeCap = args.gasPrice ?? args.maxFeePerGas ?? 0n;
    if (feeCap > 0n) {
      const balance = (await ctx.state.getAccount(senderOf(args)))?.balance ?? 0n;
      const value = args.value ?? 0n;
      if (value > balance) throw new ApplicationError('insufficient funds for transfer');
      const allowance = (balance - value) / feeCap;
      if (hi > allowance) hi = allowance;
    }
    if (options.gasCap > 0n && hi > options.gasCap) hi = options.gasCap;
    const cap = hi;

    const run = (gas: bigint) => this.runner.execute(ctx, { ...args, gas }, gas, deadline);
    const first = await run(hi);
    const error = first.execResult.exceptionError;
    if (error !== undefined) {
      if (isRevert(error)) throwIfFailed(first);
      if (error.error !== 'out of gas') throwIfFailed(first);
      throw new ApplicationError(`gas required exceeds allowance (${cap})`);
    }
    const succeeds = async (gas: bigint): Promise<boolean> => {
      try {
        return (await run(gas)).execResult.exceptionError === undefined;
      } catch (err) {
        // Too little gas to even start (below the intrinsic gas) counts as failing.
        if (err instanceof ApplicationError && err.message.startsWith('intrinsic gas too low')) return false;
        throw err;
      }
    };
    let lo = first.totalGasSpent - 1n;
    const optimistic = ((first.totalGasSpent + first.gasRefund + CALL_STIPEND) * 64n) / 63n;
    if (optimistic < hi) {
      if (await succeeds(optimistic)) hi = optimistic;
      else lo = optimistic;
    }
    while (lo + 1n < hi) {
      let mid = (hi + lo) / 2n;
      if (mid > lo * 2n) mid = lo * 2n;
      if (await succeeds(mid)) hi = mid;
      else lo = mid;
    }
    return hi;
  }
}
