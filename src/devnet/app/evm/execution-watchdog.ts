/**
 * Stops an EVM execution that runs past its deadline. The VM never yields between synchronous
 * opcodes, so a timer cannot interrupt a loop. A loop needs JUMP or JUMPI, and a long execution
 * without loops needs many calls: the watchdog's JUMP and JUMPI run the VM's own ones after a glance
 * at the clock (every few hundred jumps), and every new message is checked too. Throwing unwinds the
 * execution, reverting its state, from whatever depth it has reached.
 */
import type { Common } from '@ethereumjs/common';
import { getOpcodesForHF, type EVMOpts } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';

export class ExecutionAborted extends Error {
  override readonly name = 'ExecutionAborted';
}

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number];

const JUMP = 0x56;
const JUMPI = 0x57;
const JUMPS_PER_CHECK = 256;

export class ExecutionWatchdog {
  private deadline: { at: number; message: string } | undefined;
  private jumps = 0;

  /** Aborts executions after `at` (ms since the epoch) with `message`; returns the disarm function. */
  arm(at: number, message: string): () => void {
    const deadline = { at, message };
    this.deadline = deadline;
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
          if (++this.jumps % JUMPS_PER_CHECK === 0) this.check();
          return opHandler(runState, common_);
        },
      } satisfies CustomOpcode;
    });
  }

  /** Checks every message the VM starts. */
  watch(vm: VM): void {
    vm.evm.events!.on('beforeMessage', () => this.check());
  }

  private check(): void {
    if (this.deadline !== undefined && Date.now() > this.deadline.at) throw new ExecutionAborted(this.deadline.message);
  }
}
