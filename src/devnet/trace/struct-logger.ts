/**
 * go-ethereum's struct logger (the default of debug_trace*): one entry per executed opcode with the
 * program counter, opcode, gas left and its cost, depth (1 for the transaction's own frame), the stack
 * (unless disableStack), the memory in 32-byte words (with enableMemory) and, on SLOAD and SSTORE, the
 * storage slots of the executing contract seen so far (unless disableStorage). The result is
 * `{gas, failed, returnValue, structLogs}` with the return data (or revert data) as hex without 0x,
 * as Evmos (go-ethereum 1.10) writes it.
 */
import type { InterpreterStep } from '@ethereumjs/evm';
import { bytesToBigInt, setLengthLeft } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import type { Json, JsonObject } from '../json';
import { isRevert } from '../app/evm/vm-errors';
import { quantity } from '../app/evm/hex';
import { TraceBudget } from './trace-budget';
import type { TxTracer } from './tx-tracer';

/** Upper bounds of what an entry's parts take in JSON: its fixed fields, a stack item, a memory word, a storage slot. */
const ENTRY_BYTES = 100;
const STACK_ITEM_BYTES = 70;
const MEMORY_WORD_BYTES = 67;
const STORAGE_SLOT_BYTES = 135;

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const word = (value: bigint): string => value.toString(16).padStart(64, '0');

/** The struct logger's switches (go-ethereum's logger.Config). */
export interface StructLoggerConfig {
  readonly disableStorage?: boolean;
  readonly disableStack?: boolean;
  readonly enableMemory?: boolean;
}

export class StructLogger implements TxTracer {
  private readonly logs: JsonObject[] = [];
  /** Storage seen per contract address: slot → value, both as 64 hex digits. */
  private readonly storage = new Map<string, Map<string, string>>();

  constructor(
    private readonly config: StructLoggerConfig,
    private readonly budget: TraceBudget = TraceBudget.unlimited(),
  ) {}

  attach(vm: VM): () => void {
    const listener = (step: InterpreterStep, resolve?: (result?: unknown) => void): void => {
      // Thrown here, in the VM's step event, the error stops the execution.
      this.budget.check();
      this.record(step).then(
        () => resolve?.(),
        () => resolve?.(),
      );
    };
    vm.evm.events!.on('step', listener);
    return () => void vm.evm.events!.off('step', listener);
  }

  result(run: RunTxResult): Json {
    const error = run.execResult.exceptionError;
    const returned = error === undefined || isRevert(error) ? run.execResult.returnValue : new Uint8Array(0);
    return { gas: Number(run.totalGasSpent), failed: error !== undefined, returnValue: hex(returned), structLogs: this.logs };
  }

  private async record(step: InterpreterStep): Promise<void> {
    const entry: JsonObject = {
      pc: step.pc,
      op: step.opcode.name,
      gas: Number(step.gasLeft),
      gasCost: Number(step.opcode.dynamicFee ?? BigInt(step.opcode.fee)),
      depth: step.depth + 1,
    };
    if (this.config.disableStack !== true) entry.stack = step.stack.map((item) => quantity(item));
    if (this.config.enableMemory === true) {
      const words: string[] = [];
      for (let i = 0; i + 32 <= step.memory.length; i += 32) words.push(hex(step.memory.subarray(i, i + 32)));
      entry.memory = words;
    }
    this.logs.push(entry);
    const stackBytes = entry.stack === undefined ? 0 : step.stack.length * STACK_ITEM_BYTES;
    const memoryBytes = entry.memory === undefined ? 0 : (step.memory.length / 32) * MEMORY_WORD_BYTES;
    this.budget.add(ENTRY_BYTES + (entry.op as string).length + stackBytes + memoryBytes);
    if (this.config.disableStorage !== true && (step.opcode.name === 'SLOAD' || step.opcode.name === 'SSTORE')) {
      const storage = await this.touch(step);
      if (storage !== undefined) {
        entry.storage = storage;
        this.budget.add(Object.keys(storage).length * STORAGE_SLOT_BYTES);
      }
    }
  }

  /** Records the slot the step reads or writes; returns a copy of the contract's slots so far. */
  private async touch(step: InterpreterStep): Promise<JsonObject | undefined> {
    const { stack } = step;
    const top = stack.length - 1;
    const contract = step.address.toString();
    const slots = this.storage.get(contract) ?? new Map<string, string>();
    this.storage.set(contract, slots);
    if (step.opcode.name === 'SLOAD' && stack.length >= 1) {
      const key = setLengthLeft(Uint8Array.from(Buffer.from(word(stack[top]), 'hex')), 32);
      const value = bytesToBigInt(await step.stateManager.getStorage(step.address, key));
      slots.set(word(stack[top]), word(value));
    } else if (step.opcode.name === 'SSTORE' && stack.length >= 2) {
      slots.set(word(stack[top]), word(stack[top - 1]));
    } else {
      return undefined;
    }
    return Object.fromEntries(slots);
  }
}
