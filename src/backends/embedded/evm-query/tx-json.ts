/**
 * A transaction as go-ethereum's RPCTransaction (§5.2): Evmos's fields and order, plus what the
 * execution-apis spec and go-ethereum add: `blockTimestamp` (null while pending) and, on typed
 * transactions, `yParity` (the signature's y parity, which `v` also is for them).
 */
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import type { Json, JsonObject } from '../../../rpc/json';
import { effectiveGasPrice, feeCapOf } from '../../../devnet/app/evm/tx-checks';
import { hexData, quantity } from '../../../devnet/app/evm/hex';

/** Where a mined tx is; pending txs have none. */
export interface TxPlacement {
  blockHash: Uint8Array;
  blockNumber: bigint;
  /** EVM transaction index in the block. */
  index: number;
  baseFee: bigint;
  /** The block's time, in seconds. */
  timestamp: bigint;
}

export function txJson(tx: TypedTransaction, from: Uint8Array, nodeChainId: bigint, placement: TxPlacement | undefined): JsonObject {
  const dynamicFee = tx.supports(Capability.EIP1559FeeMarket);
  const json: JsonObject = {
    blockHash: placement === undefined ? null : hexData(placement.blockHash),
    blockNumber: placement === undefined ? null : quantity(placement.blockNumber),
    blockTimestamp: placement === undefined ? null : quantity(placement.timestamp),
    from: hexData(from),
    gas: quantity(tx.gasLimit),
    // A mined dynamic-fee tx shows what it paid; a pending one its fee cap.
    gasPrice: quantity(dynamicFee && placement !== undefined ? effectiveGasPrice(tx, placement.baseFee) : feeCapOf(tx)),
  };
  if (dynamicFee && 'maxFeePerGas' in tx) {
    json.maxFeePerGas = quantity(tx.maxFeePerGas);
    json.maxPriorityFeePerGas = quantity(tx.maxPriorityFeePerGas);
  }
  json.hash = hexData(tx.hash());
  json.input = hexData(tx.data);
  json.nonce = quantity(tx.nonce);
  json.to = tx.to === undefined ? null : hexData(tx.to.bytes);
  json.transactionIndex = placement === undefined ? null : quantity(placement.index);
  json.value = quantity(tx.value);
  json.type = quantity(tx.type);
  if ('accessList' in tx) json.accessList = accessListJson(tx.accessList);
  json.chainId = quantity(signedChainId(tx) ?? nodeChainId);
  json.v = quantity(tx.v ?? 0n);
  json.r = quantity(tx.r ?? 0n);
  json.s = quantity(tx.s ?? 0n);
  if (tx.type !== 0) json.yParity = quantity(tx.v ?? 0n);
  return json;
}

function accessListJson(list: readonly (readonly [Uint8Array, readonly Uint8Array[]])[]): Json {
  return list.map(([address, keys]) => ({ address: hexData(address), storageKeys: keys.map(hexData) }));
}

/** The chain id a tx was signed for: a typed tx's field, or the one in a protected legacy tx's v. */
function signedChainId(tx: TypedTransaction): bigint | undefined {
  if ('chainId' in tx) return tx.chainId;
  const v = tx.v ?? 0n;
  return v >= 35n ? (v - 35n) / 2n : undefined;
}
