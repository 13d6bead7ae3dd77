/**
 * Who took part in an Ethereum transaction, recorded while it executes (for the address index):
 *
 * - participants: every address that sends or receives one of its messages, failed or not: the
 *   transaction's own call or creation, and each internal CALL, CALLCODE, DELEGATECALL, STATICCALL,
 *   CREATE and CREATE2 (the code account of a delegated call, the address a creation was given,
 *   precompiles included), and the beneficiary of a SELFDESTRUCT that was not undone;
 * - creations: the contracts it created and kept, each with the account that created it (the
 *   sender, or the contract that ran CREATE/CREATE2). A creation inside a frame that failed later is
 *   undone, and so not kept.
 *
 * The VM's message events give all of it at the cost of two listener calls per message; no opcode is
 * stepped.
 */
import type { EVMResult, Message } from '@ethereumjs/evm';
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';

export interface Creation {
  address: Uint8Array;
  creator: Uint8Array;
}

export interface TxActivity {
  /** Distinct addresses, in the order they first appeared. */
  participants: Uint8Array[];
  /** Contracts created and kept, in the order their creation finished. */
  creations: Creation[];
}

interface OpenFrame {
  message: Message;
  isCreate: boolean;
  creations: Creation[];
}

export class ActivityRecorder {
  private readonly participants = new Map<string, Uint8Array>();
  private readonly stack: OpenFrame[] = [];
  private creations: Creation[] = [];

  /** Records the messages `vm` runs until the returned function is called. */
  attach(vm: VM): () => void {
    const events = vm.evm.events!;
    const onEnter = (message: Message): void => this.enter(message);
    const onExit = (result: EVMResult): void => this.exit(result);
    events.on('beforeMessage', onEnter);
    events.on('afterMessage', onExit);
    return () => {
      events.off('beforeMessage', onEnter);
      events.off('afterMessage', onExit);
    };
  }

  /** What was recorded since the recorder was made. */
  activity(): TxActivity {
    return { participants: [...this.participants.values()], creations: this.creations };
  }

  private enter(message: Message): void {
    this.stack.push({ message, isCreate: message.to === undefined, creations: [] });
    this.add(message.caller.bytes);
    if (message.to !== undefined) this.add(message.to.bytes);
    if (message._codeAddress !== undefined) this.add(message._codeAddress.bytes);
  }

  private exit(result: EVMResult): void {
    const frame = this.stack.pop();
    if (frame === undefined) return;
    const { message } = frame;
    // A creation's address is set on its message once the VM has derived it.
    const created = frame.isCreate ? (result.createdAddress ?? message.to) : undefined;
    if (created !== undefined) this.add(created.bytes);
    if (result.execResult.exceptionError !== undefined) return;
    for (const beneficiary of result.execResult.selfdestruct?.values() ?? []) this.add(hexToBytes(beneficiary as PrefixedHexString));
    if (created !== undefined) frame.creations.push({ address: created.bytes, creator: message.caller.bytes });
    const parent = this.stack[this.stack.length - 1];
    if (parent !== undefined) parent.creations.push(...frame.creations);
    else this.creations = frame.creations;
  }

  private add(address: Uint8Array): void {
    const key = Buffer.from(address).toString('hex');
    if (!this.participants.has(key)) this.participants.set(key, Uint8Array.from(address));
  }
}
