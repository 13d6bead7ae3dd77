/**
 * debug_traceTransaction, debug_traceBlock* and debug_traceCall. A mined tx is traced by executing its
 * block again on the state before the block, the txs before it untraced, in the block's own context;
 * a call is traced as eth_call runs it. Each traced execution has a deadline (TraceConfig.timeout,
 * 5s by default; the definitions cap it by `[json-rpc] evm-timeout`): past it the trace fails with
 * `execution timeout`, as in go-ethereum. What one call's tracers record is bounded by
 * `[json-rpc] trace-response-max-size`: past it the execution stops and the call answers
 * go-ethereum's `-32003 response too large`.
 */
import { runTx, type RunTxResult } from '@ethereumjs/vm';
import { parseDuration } from '../../../config/duration';
import { ResponseTooLargeError } from '../../../evm-rpc/evm-errors';
import { ApplicationError } from '../../../rpc/errors';
import type { BlockRef, TraceConfig, TransactionArgs } from '../../../evm-rpc/evm-types';
import type { Json, JsonObject } from '../../../rpc/json';
import { blockOf } from '../../../devnet/app/evm/execution-context';
import { callGas } from './call-message';
import type { CallOptions, CallRunner } from './call-runner';
import { blockEnvOf, type EvmBlock, type EvmChainView } from './chain-view';
import { ExecutionAborted, ExecutionWatchdog } from '../../../devnet/app/evm/execution-watchdog';
import { fromHex, hexData } from '../../../devnet/app/evm/hex';
import { TraceBudget, TraceTooLarge } from '../../../devnet/trace/trace-budget';
import { tracerFor } from '../../../devnet/trace/tx-tracer';

const DEFAULT_TIMEOUT_MS = 5_000;
const TIMEOUT = 'execution timeout';
const MAX_BYTES_KEY = 'trace-response-max-size';

/** What bounds one trace call besides its timeout. */
export interface TraceLimits {
  /** Bytes the trace's JSON may take; 0 = unlimited. */
  readonly maxBytes: number;
}
export const UNLIMITED: TraceLimits = { maxBytes: 0 };

export class TraceRunner {
  constructor(
    private readonly chain: EvmChainView,
    private readonly calls: CallRunner,
  ) {}

  async traceTransaction(hash: string, config: TraceConfig, limits: TraceLimits = UNLIMITED): Promise<Json> {
    const executed = await this.chain.executedTx(fromHex(hash));
    if (executed === undefined) throw new ApplicationError(`transaction ${hash} not found`);
    const [traced] = await this.replay(executed.block, config, new TraceBudget(limits.maxBytes), executed.index);
    if ('error' in traced) throw new ApplicationError(traced.error as string);
    return traced.result;
  }

  async traceBlock(ref: BlockRef, config: TraceConfig, limits: TraceLimits = UNLIMITED): Promise<Json> {
    const block = await this.chain.requireBlock(await this.chain.requireHeight(ref));
    return this.replay(block, config, new TraceBudget(limits.maxBytes));
  }

  async traceCall(args: TransactionArgs, ref: BlockRef, config: TraceConfig, options: CallOptions & Partial<TraceLimits>): Promise<Json> {
    const budget = new TraceBudget(options.maxBytes ?? 0);
    const tracer = tracerFor(config, budget);
    const timeoutMs = timeoutOf(config);
    const ctx = await this.calls.context(ref);
    const gas = callGas(args, ctx.env.gasLimit, options.gasCap);
    // Past the deadline, the call fails with its text.
    const deadline = timeoutMs > 0 ? { at: Date.now() + timeoutMs, message: TIMEOUT } : undefined;
    try {
      const run = await this.calls.execute(ctx, args, gas, deadline, (vm) => tracer.attach(vm));
      return tracer.result(run, gas);
    } catch (err) {
      // The call runner words every failure as the client sees it; the budget says whether it was this.
      throw budget.exceeded ? new ResponseTooLargeError(MAX_BYTES_KEY) : err;
    }
  }

  /**
   * Executes the block's Ethereum txs on the state before it; traces the one at `only`, or each.
   * Returns go-ethereum's `{txHash, result}` (or `{txHash, error}`) per traced tx.
   */
  private async replay(block: EvmBlock, config: TraceConfig, budget: TraceBudget, only?: number): Promise<JsonObject[]> {
    // An unknown tracer fails before any work.
    tracerFor(config);
    const timeoutMs = timeoutOf(config);
    const state = await this.chain.stateBefore(block.record.height);
    const watchdog = new ExecutionWatchdog();
    const vm = await this.chain.evm.vmOver(state, watchdog);
    const env = blockEnvOf(block);
    const ethBlock = blockOf(env, vm.common);
    const txs = await this.chain.transactionsOf(block);
    const traces: JsonObject[] = [];
    let gasUsed = 0n;
    for (const [index, tx] of txs.entries()) {
      if (only !== undefined && index > only) break;
      const traced = only === undefined || index === only;
      const tracer = traced ? tracerFor(config, budget) : undefined;
      const detach = tracer?.attach(vm);
      const disarm = traced && timeoutMs > 0 ? watchdog.arm(Date.now() + timeoutMs, TIMEOUT) : () => undefined;
      let run: RunTxResult;
      try {
        run = await runTx(vm, { tx, block: ethBlock, blockGasUsed: gasUsed, skipHardForkValidation: true });
      } catch (err) {
        if (err instanceof TraceTooLarge) throw new ResponseTooLargeError(MAX_BYTES_KEY);
        if (!(err instanceof ExecutionAborted)) throw err;
        traces.push({ txHash: hexData(tx.hash()), error: TIMEOUT });
        // The rest of the block cannot be traced on a state the aborted tx left out.
        break;
      } finally {
        disarm();
        detach?.();
      }
      gasUsed += run.totalGasSpent;
      if (tracer !== undefined) traces.push({ txHash: hexData(tx.hash()), result: tracer.result(run, tx.gasLimit) });
    }
    return traces;
  }
}

function timeoutOf(config: TraceConfig): number {
  if (config.timeout === undefined) return DEFAULT_TIMEOUT_MS;
  const ms = parseDuration(config.timeout);
  if (ms === undefined) throw new ApplicationError(`time: invalid duration ${JSON.stringify(config.timeout)}`);
  return ms;
}
