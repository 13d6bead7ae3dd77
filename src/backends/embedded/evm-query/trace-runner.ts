/**
 * debug_traceTransaction, debug_traceBlock* and debug_traceCall. A mined tx is traced by executing its
 * block again on the state before the block, the txs before it untraced, in the block's own context;
 * a call is traced as eth_call runs it. Each traced execution has a deadline (TraceConfig.timeout,
 * 5s by default): past it the trace fails with `execution timeout`, as in go-ethereum.
 */
import { runTx, type RunTxResult } from '@ethereumjs/vm';
import { parseDuration } from '../../../config/duration';
import { ApplicationError } from '../../../rpc/errors';
import type { BlockRef, TraceConfig, TransactionArgs } from '../../../evm-rpc/evm-types';
import type { Json, JsonObject } from '../../../rpc/json';
import { blockOf } from '../../../devnet/app/evm/execution-context';
import { callGas } from './call-message';
import type { CallOptions, CallRunner } from './call-runner';
import { blockEnvOf, type EvmBlock, type EvmChainView } from './chain-view';
import { ExecutionAborted, ExecutionWatchdog } from '../../../devnet/app/evm/execution-watchdog';
import { fromHex, hexData } from '../../../devnet/app/evm/hex';
import { tracerFor } from '../../../devnet/trace/tx-tracer';

const DEFAULT_TIMEOUT_MS = 5_000;
const TIMEOUT = 'execution timeout';

export class TraceRunner {
  constructor(
    private readonly chain: EvmChainView,
    private readonly calls: CallRunner,
  ) {}

  async traceTransaction(hash: string, config: TraceConfig): Promise<Json> {
    const executed = await this.chain.executedTx(fromHex(hash));
    if (executed === undefined) throw new ApplicationError(`transaction ${hash} not found`);
    const [traced] = await this.replay(executed.block, config, executed.index);
    if ('error' in traced) throw new ApplicationError(traced.error as string);
    return traced.result;
  }

  async traceBlock(ref: BlockRef, config: TraceConfig): Promise<Json> {
    const block = await this.chain.requireBlock(await this.chain.requireHeight(ref));
    return this.replay(block, config);
  }

  async traceCall(args: TransactionArgs, ref: BlockRef, config: TraceConfig, options: CallOptions): Promise<Json> {
    const tracer = tracerFor(config);
    const timeoutMs = timeoutOf(config);
    const ctx = await this.calls.context(ref);
    const gas = callGas(args, ctx.env.gasLimit, options.gasCap);
    // Past the deadline, the call fails with its text.
    const deadline = timeoutMs > 0 ? { at: Date.now() + timeoutMs, message: TIMEOUT } : undefined;
    const run = await this.calls.execute(ctx, args, gas, deadline, (vm) => tracer.attach(vm));
    return tracer.result(run, gas);
  }

  /**
   * Executes the block's Ethereum txs on the state before it; traces the one at `only`, or each.
   * Returns go-ethereum's `{txHash, result}` (or `{txHash, error}`) per traced tx.
   */
  private async replay(block: EvmBlock, config: TraceConfig, only?: number): Promise<JsonObject[]> {
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
      const tracer = traced ? tracerFor(config) : undefined;
      const detach = tracer?.attach(vm);
      const disarm = traced && timeoutMs > 0 ? watchdog.arm(Date.now() + timeoutMs, TIMEOUT) : () => undefined;
      let run: RunTxResult;
      try {
        run = await runTx(vm, { tx, block: ethBlock, blockGasUsed: gasUsed, skipHardForkValidation: true });
      } catch (err) {
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
