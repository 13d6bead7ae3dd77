/**
 * go-ethereum's callTracer: the call tree of a transaction, one frame per message (CALL, STATICCALL,
 * DELEGATECALL, CALLCODE, CREATE, CREATE2), each with from, to, value, gas, gasUsed, input, output
 * and, when it failed, the error (and the decoded revert reason), and one per SELFDESTRUCT (the
 * contract, its beneficiary and the balance it sends, gas 0). The top frame's gas and gasUsed are
 * the transaction's. tracerConfig: `onlyTopCall` drops the sub-calls, `withLog` adds each frame's logs
 * (those of failed frames are dropped, as go-ethereum does).
 *
 * The VM's message events give the frames; its step events tell which opcode opened a frame and carry
 * the LOG and SELFDESTRUCT opcodes' operands.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { bigIntToBytes, setLengthLeft, type Address } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import type { Json, JsonObject } from '../json';
import { isRevert, revertReason, vmErrorText } from '../app/evm/vm-errors';
import { hexData, quantity } from '../app/evm/hex';
import { TraceBudget } from './trace-budget';
import type { TxTracer } from './tx-tracer';

interface FrameLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  position: number;
}

interface Frame {
  type: string;
  from: Uint8Array;
  to?: Uint8Array;
  value?: bigint;
  gas: bigint;
  gasUsed: bigint;
  input: Uint8Array;
  output?: Uint8Array;
  error?: string;
  revertReason?: string;
  calls: Frame[];
  logs: FrameLog[];
}

/** Larger LOG data cannot be paid for with any block's gas; such a LOG fails before it is recorded. */
const MAX_LOG_DATA = 1 << 24;

const ADDRESS_MASK = (1n << 160n) - 1n;

/** Upper bounds of what a frame's fixed fields and a log's take in JSON (bytes then cost 2 each, as hex). */
const FRAME_BYTES = 300;
const LOG_BYTES = 150;
const TOPIC_BYTES = 69;

const CALL_OPS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);

export class CallTracer implements TxTracer {
  private readonly onlyTopCall: boolean;
  private readonly withLog: boolean;
  private readonly stack: Frame[] = [];
  private top: Frame | undefined;
  /** The last call-opening opcode seen at each depth. */
  private readonly openers: string[] = [];

  constructor(
    config: JsonObject,
    private readonly budget: TraceBudget = TraceBudget.unlimited(),
  ) {
    this.onlyTopCall = config.onlyTopCall === true;
    this.withLog = config.withLog === true;
  }

  attach(vm: VM): () => void {
    const events = vm.evm.events!;
    // Thrown in the VM's events, the budget's error stops the execution.
    const onStep = (step: InterpreterStep): void => {
      this.budget.check();
      this.onStep(step);
    };
    const onEnter = (message: Message): void => {
      this.budget.check();
      this.enter(message);
    };
    const onExit = (result: EVMResult): void => this.exit(result);
    events.on('step', onStep);
    events.on('beforeMessage', onEnter);
    events.on('afterMessage', onExit);
    return () => {
      events.off('step', onStep);
      events.off('beforeMessage', onEnter);
      events.off('afterMessage', onExit);
    };
  }

  result(run: RunTxResult, gasLimit: bigint): Json {
    const top = this.top;
    if (top === undefined) return null;
    top.gas = gasLimit;
    top.gasUsed = run.totalGasSpent;
    dropFailedLogs(top, false);
    return frameJson(top);
  }

  private onStep(step: InterpreterStep): void {
    const op = step.opcode.name;
    if (CALL_OPS.has(op)) this.openers[step.depth] = op;
    else if (op === 'SELFDESTRUCT') this.selfDestruct(step);
    else if (this.withLog && op.startsWith('LOG')) this.log(step);
  }

  /**
   * go-ethereum's SELFDESTRUCT frame: from the contract to the beneficiary, with the contract's balance
   * (the step's account is the VM's current view of it, the one SELFBALANCE reads).
   */
  private selfDestruct(step: InterpreterStep): void {
    const parent = this.stack[this.stack.length - 1];
    const beneficiary = step.stack[step.stack.length - 1];
    if (parent === undefined || this.onlyTopCall || beneficiary === undefined) return;
    parent.calls.push({
      type: 'SELFDESTRUCT',
      from: step.address.bytes,
      to: setLengthLeft(bigIntToBytes(beneficiary & ADDRESS_MASK), 20),
      value: step.account.balance,
      gas: 0n,
      gasUsed: 0n,
      input: new Uint8Array(0),
      calls: [],
      logs: [],
    });
  }

  private enter(message: Message): void {
    const depth = message.depth;
    const opener = depth === 0 ? (message.to === undefined ? 'CREATE' : 'CALL') : (this.openers[depth - 1] ?? 'CALL');
    // DELEGATECALL and CALLCODE run the callee's code in the caller's account: go-ethereum names the
    // calling contract as `from` and the code's account as `to`.
    const codeCall = opener === 'DELEGATECALL' || opener === 'CALLCODE';
    const frame: Frame = {
      type: opener,
      from: (codeCall ? message.to! : message.caller).bytes,
      to: opener.startsWith('CREATE') ? undefined : (codeCall ? message.codeAddress : (message.to as Address)).bytes,
      value: opener === 'DELEGATECALL' || opener === 'STATICCALL' ? undefined : message.value,
      gas: message.gasLimit,
      gasUsed: 0n,
      input: Uint8Array.from(message.data),
      calls: [],
      logs: [],
    };
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined || !this.onlyTopCall) this.budget.add(FRAME_BYTES + frame.input.length * 2);
    if (parent === undefined) this.top = frame;
    else if (!this.onlyTopCall) parent.calls.push(frame);
    this.stack.push(frame);
  }

  private exit(result: EVMResult): void {
    const frame = this.stack.pop();
    if (frame === undefined) return;
    const { execResult } = result;
    frame.gasUsed = execResult.executionGasUsed;
    const error = execResult.exceptionError;
    if (error === undefined) {
      if (frame.type.startsWith('CREATE')) frame.to = result.createdAddress?.bytes;
      if (execResult.returnValue.length > 0) frame.output = execResult.returnValue;
      this.budget.add(execResult.returnValue.length * 2);
      return;
    }
    frame.error = vmErrorText(error);
    if (frame.type.startsWith('CREATE')) frame.to = undefined;
    if (isRevert(error) && execResult.returnValue.length > 0) {
      frame.output = execResult.returnValue;
      frame.revertReason = revertReason(execResult.returnValue);
    }
  }

  private log(step: InterpreterStep): void {
    const frame = this.stack[this.stack.length - 1];
    const count = Number(step.opcode.name.slice(3));
    const stack = [...step.stack].reverse();
    if (frame === undefined || stack.length < 2 + count) return;
    const offset = Number(stack[0]);
    const size = Number(stack[1]);
    if (size > MAX_LOG_DATA) return;
    const data = new Uint8Array(size);
    data.set(step.memory.subarray(offset, offset + size));
    const topics = stack.slice(2, 2 + count).map((t) => setLengthLeft(bigIntToBytes(t), 32));
    frame.logs.push({ address: step.address.bytes, topics, data, position: frame.calls.length });
    this.budget.add(LOG_BYTES + count * TOPIC_BYTES + size * 2);
  }
}

function dropFailedLogs(frame: Frame, parentFailed: boolean): void {
  const failed = parentFailed || frame.error !== undefined;
  if (failed) frame.logs = [];
  for (const call of frame.calls) dropFailedLogs(call, failed);
}

/** go-ethereum's callFrame JSON, in its field order. */
function frameJson(frame: Frame): JsonObject {
  const json: JsonObject = {
    type: frame.type,
    from: hexData(frame.from),
    gas: quantity(frame.gas),
    gasUsed: quantity(frame.gasUsed),
  };
  if (frame.to !== undefined) json.to = hexData(frame.to);
  json.input = hexData(frame.input);
  if (frame.output !== undefined) json.output = hexData(frame.output);
  if (frame.error !== undefined) json.error = frame.error;
  if (frame.revertReason !== undefined) json.revertReason = frame.revertReason;
  if (frame.calls.length > 0) json.calls = frame.calls.map(frameJson);
  if (frame.logs.length > 0) {
    json.logs = frame.logs.map((log) => ({
      address: hexData(log.address),
      topics: log.topics.map(hexData),
      data: hexData(log.data),
      position: quantity(log.position),
    }));
  }
  if (frame.value !== undefined) json.value = quantity(frame.value);
  return json;
}
