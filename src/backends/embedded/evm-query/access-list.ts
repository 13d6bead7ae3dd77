/**
 * eth_createAccessList as go-ethereum answers it: the call runs with the access list found so far until
 * the list it touches stops changing; the sender, the recipient (or created contract) and the
 * precompiles are left out, as they are warm anyway. The answer is the list, the gas the call uses with
 * it, and the execution error (a failed call still answers).
 */
import { createAddressFromString, generateAddress } from '@ethereumjs/util';
import type { JsonObject } from '../../../rpc/json';
import type { BlockRef, TransactionArgs } from '../../../evm-rpc/evm-types';
import { EXECUTION_REVERTED, isRevert, vmErrorText } from '../../../devnet/app/evm/vm-errors';
import { hexData, quantity } from '../../../devnet/app/evm/hex';
import { callGas, senderOf } from './call-message';
import { callDeadline, type CallOptions, type CallRunner } from './call-runner';

type AccessList = { address: string; storageKeys: string[] }[];

/** Cancun's precompiles: 0x01 (ecrecover) to 0x0a (point evaluation). */
const PRECOMPILES = Array.from({ length: 10 }, (_, i) => '0x' + (i + 1).toString(16).padStart(40, '0'));

/** go-ethereum gives up after this many rounds; a list that keeps changing is a contract that adapts to gas. */
const MAX_ROUNDS = 16;

export async function createAccessList(calls: CallRunner, args: TransactionArgs, ref: BlockRef, options: CallOptions): Promise<JsonObject> {
  const ctx = await calls.context(ref);
  const gas = callGas(args, ctx.env.gasLimit, options.gasCap);
  const from = senderOf(args);
  let to: string;
  if (args.to === undefined || args.to === null) {
    const nonce = args.nonce ?? (await ctx.state.getAccount(from))?.nonce ?? 0n;
    to = hexData(generateAddress(from.bytes, bigintBytes(nonce)));
  } else {
    to = createAddressFromString(args.to).toString();
  }
  const excluded = new Set([from.toString(), to, ...PRECOMPILES]);
  const deadline = callDeadline(options.timeoutMs);
  let list = normalise(args.accessList ?? [], excluded);
  for (let round = 0; ; round++) {
    const run = await calls.execute(ctx, { ...args, accessList: list }, gas, deadline, undefined, { reportAccessList: true });
    const touched = normalise(run.accessList ?? [], excluded);
    if (same(touched, list) || round === MAX_ROUNDS) {
      const json: JsonObject = { accessList: list, gasUsed: quantity(run.totalGasSpent) };
      const error = run.execResult.exceptionError;
      if (error !== undefined) json.error = isRevert(error) ? EXECUTION_REVERTED : vmErrorText(error);
      return json;
    }
    list = touched;
  }
}

function normalise(list: readonly { readonly address: string; readonly storageKeys: readonly string[] }[], excluded: ReadonlySet<string>): AccessList {
  const byAddress = new Map<string, Set<string>>();
  for (const { address, storageKeys } of list) {
    const key = address.toLowerCase();
    const slots = byAddress.get(key) ?? new Set<string>();
    for (const slot of storageKeys) slots.add('0x' + slot.slice(2).toLowerCase().padStart(64, '0'));
    byAddress.set(key, slots);
  }
  return [...byAddress]
    .filter(([address, slots]) => !excluded.has(address) || slots.size > 0)
    .map(([address, slots]) => ({ address, storageKeys: [...slots].sort() }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

function same(a: AccessList, b: AccessList): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function bigintBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  const hex = value.toString(16);
  return Uint8Array.from(Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex'));
}
