/**
 * eth_call's engine, shared by eth_estimateGas and debug_traceCall: a call runs as an unsigned
 * transaction in the context of a block (its number, time, gas limit, base fee, coinbase) on the state
 * after that block, with go-ethereum's checks before execution (intrinsic gas, funds for gas × price +
 * value) and no nonce check. Its state changes are dropped.
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { runTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { formatDuration } from '../../../config/duration';
import { ApplicationError } from '../../../rpc/errors';
import type { BlockRef, TransactionArgs } from '../../../evm-rpc/evm-types';
import { blockOf, type BlockEnv } from '../../../devnet/app/evm/execution-context';
import { EXECUTION_REVERTED, isRevert, revertMessage, vmErrorText } from '../../../devnet/app/evm/vm-errors';
import { callGas, callMessage, senderOf } from './call-message';
import { blockEnvOf, type EvmChainView } from './chain-view';
import { ExecutionAborted, ExecutionWatchdog } from '../../../devnet/app/evm/execution-watchdog';
import { hexData, toChecksumAddress } from '../../../devnet/app/evm/hex';

export interface CallOptions {
  gasCap: bigint;
  /** 0 = no limit. */
  timeoutMs: number;
}

/** Where calls run: a block's context and a throwaway copy of the state after it, with a VM over it. */
export interface CallContext {
  env: BlockEnv;
  state: MerkleStateManager;
  vm: VM;
  watchdog: ExecutionWatchdog;
}

/** Attaches tracing to the VM for one execution; returns the detach function. */
export type ExecutionHooks = (vm: VM) => () => void;

export class CallRunner {
  constructor(private readonly chain: EvmChainView) {}

  async context(ref: BlockRef): Promise<CallContext> {
    const block = await this.chain.requireBlock(await this.chain.requireHeight(ref));
    const env = blockEnvOf(block);
    const state = await this.chain.evm.stateAt(block.record.stateRoot);
    const watchdog = new ExecutionWatchdog();
    return { env, state, vm: await this.chain.evm.vmOver(state, watchdog), watchdog };
  }

  async call(args: TransactionArgs, ref: BlockRef, options: CallOptions): Promise<string> {
    const ctx = await this.context(ref);
    const gas = callGas(args, ctx.env.gasLimit, options.gasCap);
    const result = await this.execute(ctx, args, gas, callDeadline(options.timeoutMs));
    throwIfFailed(result);
    return hexData(result.execResult.returnValue);
  }

  /**
   * Runs the call once with `gas`, leaving the context's state as it was. Fails with go-ethereum's
   * texts when the call cannot start or runs out of time; an execution error is in the result.
   */
  async execute(
    ctx: CallContext,
    args: TransactionArgs,
    gas: bigint,
    deadline: Deadline | undefined,
    hooks?: ExecutionHooks,
    report?: { reportAccessList?: boolean },
  ): Promise<RunTxResult> {
    const { state, vm } = ctx;
    const sender = await state.getAccount(senderOf(args));
    const message = callMessage(args, vm.common, ctx.env, gas, sender?.nonce ?? 0n);
    const intrinsic = message.tx.getIntrinsicGas();
    if (gas < intrinsic) throw new ApplicationError(`intrinsic gas too low: have ${gas}, want ${intrinsic}`);
    const balance = sender?.balance ?? 0n;
    const required = gas * message.feeCap + (args.value ?? 0n);
    if (balance < required) {
      throw new ApplicationError(`insufficient funds for gas * price + value: address ${toChecksumAddress(message.from.bytes)} have ${balance} want ${required}`);
    }
    const disarm = deadline === undefined ? () => undefined : ctx.watchdog.arm(deadline.at, deadline.message);
    const unhook = hooks?.(vm);
    await state.checkpoint();
    try {
      return await runTx(vm, {
        tx: message.tx,
        block: blockOf(message.env, vm.common),
        skipNonce: true,
        skipBalance: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        reportAccessList: report?.reportAccessList,
      });
    } catch (err) {
      if (err instanceof ExecutionAborted) throw new ApplicationError(err.message);
      // ethereumjs refuses a sender with code (EIP-3607) even for a call, where go-ethereum does not check.
      if ((err as Error).message.includes('EIP-3607')) throw new ApplicationError(`sender not an eoa: address ${toChecksumAddress(message.from.bytes)}`);
      throw new ApplicationError((err as Error).message.replace(/ \(.*$/, ''));
    } finally {
      await state.revert();
      unhook?.();
      disarm();
    }
  }
}

/** When an execution must have finished, and the error it fails with past that. */
export interface Deadline {
  at: number;
  message: string;
}

/** eth_call's deadline (evm-timeout; 0 = none), failing as go-ethereum's DoCall does. */
export function callDeadline(timeoutMs: number): Deadline | undefined {
  return timeoutMs > 0 ? { at: Date.now() + timeoutMs, message: `execution aborted (timeout = ${formatDuration(timeoutMs)})` } : undefined;
}

/** A failed call as go-ethereum answers it: a revert with data is code 3 with the data, else -32000. */
export function throwIfFailed(result: RunTxResult): void {
  const error = result.execResult.exceptionError;
  if (error === undefined) return;
  if (isRevert(error)) {
    const data = result.execResult.returnValue;
    if (data.length === 0) throw new ApplicationError(EXECUTION_REVERTED);
    throw new ApplicationError(revertMessage(data), 3, hexData(data));
  }
  throw new ApplicationError(vmErrorText(error));
}
