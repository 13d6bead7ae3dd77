/**
 * Keeps a client's EVM execution from holding the event loop, and stops it at its deadline. The
 * interpreter runs synchronous opcodes back to back without ever giving the event loop a turn, but it
 * awaits a custom opcode's handler and a two-argument `beforeMessage` listener. A loop needs JUMP or
 * JUMPI, and a long execution without loops needs many messages, so the watchdog replaces JUMP and
 * JUMPI by handlers that glance at the clock every few jumps, and listens to every message: past the
 * deadline the execution is aborted (throwing unwinds it, reverting its state, from whatever depth it
 * has reached); after a slice of a few milliseconds it waits for the next event-loop turn
 * (setImmediate), so timers, sockets and block production run between slices. Block execution has no
 * watchdog: it never yields and never waits on a client's execution.
 */
import type { Common } from '@ethereumjs/common';
import { getOpcodesForHF, type EVMOpts } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import { nextTurn, SLICE_MS } from '../../indexer/time-slice';

export class ExecutionAborted extends Error {
  override readonly name = 'ExecutionAborted';
}

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number];

const JUMP = 0x56;
const JUMPI = 0x57;
const JUMPS_PER_CHECK = 32;

export class ExecutionWatchdog {
  private deadline: { at: number; message: string } | undefined;
  private jumps = 0;
  /** When the running slice ends (performance.now()); undefined until an execution starts one. */
  private sliceEnds: number | undefined;

  /** Aborts executions after `at` (ms since the epoch) with `message`; returns the disarm function. */
  arm(at: number, message: string): () => void {
    const deadline = { at, message };
    this.deadline = deadline;
    this.sliceEnds = undefined;
    return () => {
      if (this.deadline === deadline) this.deadline = undefined;
    };
  }

  /** JUMP and JUMPI that look at the clock before they jump. */
  opcodes(common: Common): CustomOpcode[] {
    const { opcodeMap } = getOpcodesForHF(common);
    return [JUMP, JUMPI].map((code) => {
      const { opcodeInfo, opHandler } = opcodeMap[code];
      return {
        opcode: code,
        opcodeName: opcodeInfo.name,
        baseFee: opcodeInfo.fee,
        logicFunction: (runState, common_) => {
          if (++this.jumps % JUMPS_PER_CHECK !== 0) return opHandler(runState, common_);
          const pause = this.checkpoint();
          if (pause === undefined) return opHandler(runState, common_);
          return pause.then(() => {
            this.check();
            return opHandler(runState, common_);
          });
        },
      } satisfies CustomOpcode;
    });
  }

  /** Checks every message the VM starts (the VM awaits a listener that takes a callback). */
  watch(vm: VM): void {
    vm.evm.events!.on('beforeMessage', (_message: unknown, done?: () => void) => {
      const pause = this.checkpoint();
      if (pause === undefined) done?.();
      else void pause.then(done);
    });
  }

  /** Throws past the deadline; when the slice is used up, the pause to await before going on. */
  private checkpoint(): Promise<void> | undefined {
    this.check();
    const now = performance.now();
    if (this.sliceEnds === undefined) this.sliceEnds = now + SLICE_MS;
    if (now < this.sliceEnds) return undefined;
    return nextTurn().then(() => {
      this.sliceEnds = performance.now() + SLICE_MS;
    });
  }

  private check(): void {
    if (this.deadline !== undefined && Date.now() > this.deadline.at) throw new ExecutionAborted(this.deadline.message);
  }
}
