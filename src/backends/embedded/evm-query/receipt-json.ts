/** Receipts (§5.4: keys alphabetical, as Evmos builds them from a map) and logs (§5.3: struct order). */
import { Bloom } from '@ethereumjs/vm';
import type { JsonObject } from '../../../rpc/json';
import type { EvmLog, EvmTxRecord } from '../../../devnet/evm-state/evm-chain-store';
import { hexData, quantity } from '../../../devnet/app/evm/hex';

/** Where a receipt's tx is in its block. */
export interface ReceiptPlacement {
  blockHash: Uint8Array;
  blockNumber: bigint;
  index: number;
  /** Block-wide index of the tx's first log. */
  firstLogIndex: number;
}

export function logJson(log: EvmLog, record: EvmTxRecord, placement: ReceiptPlacement, logIndex: number): JsonObject {
  return {
    address: hexData(log.address),
    topics: log.topics.map(hexData),
    data: hexData(log.data),
    blockNumber: quantity(placement.blockNumber),
    transactionHash: hexData(record.hash),
    transactionIndex: quantity(placement.index),
    blockHash: hexData(placement.blockHash),
    logIndex: quantity(logIndex),
    removed: false,
  };
}

function logsJson(record: EvmTxRecord, placement: ReceiptPlacement): JsonObject[] {
  return record.logs.map((log, i) => logJson(log, record, placement, placement.firstLogIndex + i));
}

export function logsBloom(logs: readonly EvmLog[]): Uint8Array {
  const bloom = new Bloom();
  for (const log of logs) {
    bloom.add(log.address);
    for (const topic of log.topics) bloom.add(topic);
  }
  return bloom.bitvector;
}

export function receiptJson(record: EvmTxRecord, placement: ReceiptPlacement): JsonObject {
  return {
    blockHash: hexData(placement.blockHash),
    blockNumber: quantity(placement.blockNumber),
    contractAddress: record.contractAddress === undefined ? null : hexData(record.contractAddress),
    cumulativeGasUsed: quantity(record.cumulativeGasUsed),
    effectiveGasPrice: quantity(record.effectiveGasPrice),
    from: hexData(record.from),
    gasUsed: quantity(record.gasUsed),
    logs: logsJson(record, placement),
    logsBloom: hexData(logsBloom(record.logs)),
    status: quantity(record.status),
    to: record.to === undefined ? null : hexData(record.to),
    transactionHash: hexData(record.hash),
    transactionIndex: quantity(placement.index),
    type: quantity(record.type),
  };
}

/** Block-wide index of each tx's first log. */
export function firstLogIndexes(txs: readonly EvmTxRecord[]): number[] {
  let next = 0;
  return txs.map((tx) => {
    const first = next;
    next += tx.logs.length;
    return first;
  });
}
