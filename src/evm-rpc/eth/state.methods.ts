import { ApplicationError } from '../../rpc/errors';
import type { JsonObject } from '../../rpc/json';
import { defineMethod, optional, param, returns, type MethodEnv } from '../../rpc/method';
import { cacheAt, heightAt } from '../block-rules';
import * as c from '../codec/codecs';
import { decodeStorageSlot } from '../codec/storage-slot';
import { toBackendArgs, type RpcTransactionArgs } from '../codec/transaction-args';
import type { BlockRef, Quantity } from '../evm-types';

const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };

/** A read of the state at the call's `block`: kept as long as that block's state is, routed to nodes that have it. */
const read = {
  group: 'eth',
  idempotent: true,
  cache: (a: { readonly block?: BlockRef }) => cacheAt(a.block),
  height: (a: { readonly block?: BlockRef }) => heightAt(a.block),
} as const;

/** The block is optional (the spec; go-ethereum): left out, it is `latest`, written out for the nodes that require it (Evmos, anvil). */
const at = optional('block', c.blockNumberOrHash);
function atLatest<A extends { readonly block?: BlockRef }>(a: A): A {
  return a.block === undefined ? { ...a, block: LATEST } : a;
}

/** `[json-rpc] evm-timeout` as an execution's limit (0 = the pool's request_timeout upstream). */
export const evmTimeout = ({ config }: MethodEnv): number | undefined => config.jsonRpc['evm-timeout'] || undefined;

/**
 * The arguments of an execution ready to run: `data` and `input` agreeing, the gas lowered to
 * `[json-rpc] gas-cap` (0 = none), a left-out block written out as `latest` when `block` says so.
 */
export function executable<A extends { readonly args: RpcTransactionArgs; readonly block?: BlockRef }>(a: A, { config }: MethodEnv, writeBlock: boolean): A {
  toBackendArgs(a.args);
  const cap = BigInt(config.jsonRpc['gas-cap']);
  const capped = cap > 0n && a.args.gas !== undefined && a.args.gas > cap;
  const ready = writeBlock ? atLatest(a) : a;
  return capped ? { ...ready, args: { ...a.args, gas: cap } } : ready;
}

/**
 * Account state and execution at a block: balances, code, storage, proofs, eth_call, eth_estimateGas,
 * eth_createAccessList.
 */
export const eth_getBalance = defineMethod({ ...read, name: 'eth_getBalance', params: [param('address', c.address), at], prepare: atLatest, result: returns<Quantity>() });
export const eth_getStorageAt = defineMethod({
  ...read,
  name: 'eth_getStorageAt',
  params: [param('address', c.address), param('slot', c.string), at],
  // The key as go-ethereum reads it (0x optional, padded to 32 bytes): some nodes take only that form.
  prepare: (a) => {
    const slot = decodeStorageSlot(a.slot);
    return atLatest(slot === a.slot ? a : { ...a, slot });
  },
  result: returns<string>(),
});
export const eth_getTransactionCount = defineMethod({ ...read, name: 'eth_getTransactionCount', params: [param('address', c.address), at], prepare: atLatest, result: returns<Quantity>() });
export const eth_getCode = defineMethod({ ...read, name: 'eth_getCode', params: [param('address', c.address), at], prepare: atLatest, result: returns<string>() });
export const eth_getProof = defineMethod({
  ...read,
  name: 'eth_getProof',
  params: [param('address', c.address), param('storageKeys', c.strings), at],
  prepare: (a) => {
    const storageKeys = a.storageKeys.map(decodeStorageSlot);
    return atLatest(storageKeys.every((key, i) => key === a.storageKeys[i]) ? a : { ...a, storageKeys });
  },
  result: returns<JsonObject>(),
});
/** The upstream node applies its own gas cap, as it does to eth_call. */
export const eth_createAccessList = defineMethod({
  ...read,
  name: 'eth_createAccessList',
  params: [param('args', c.transactionArgs), optional('block', c.blockNumberOrHash)],
  prepare: (a) => {
    toBackendArgs(a.args);
    return a;
  },
  timeoutMs: evmTimeout,
  result: returns<JsonObject>(),
});
export const eth_call = defineMethod({
  ...read,
  name: 'eth_call',
  params: [param('args', c.transactionArgs), at, optional('overrides', c.stateOverride)],
  prepare: (a, env) => {
    // No backend can apply overrides; answering without them would be silently wrong.
    if (a.overrides && Object.keys(a.overrides).length > 0) throw new ApplicationError('state overrides are not supported');
    return executable(a, env, true);
  },
  timeoutMs: evmTimeout,
  result: returns<string>(),
});
/** Without a block it estimates against the pending state, which is not kept. */
export const eth_estimateGas = defineMethod({
  ...read,
  name: 'eth_estimateGas',
  params: [param('args', c.transactionArgs), optional('block', c.blockNumber)],
  cache: (a) => cacheAt(a.block ?? { kind: 'tag', tag: 'pending' }),
  prepare: (a, env) => executable(a, env, false),
  timeoutMs: evmTimeout,
  result: returns<Quantity>(),
});

export const ethStateMethods = [eth_getBalance, eth_getStorageAt, eth_getTransactionCount, eth_getCode, eth_getProof, eth_createAccessList, eth_call, eth_estimateGas];
