/**
 * An EVM block (§5.1; keys alphabetical, as Evmos builds it from a map). It is the node block at that
 * height: same number, same hash (the CometBFT header hash), parent hash = last_block_id.hash (the
 * first block's parent is the EVM genesis block, which has no node block: see genesis-block.ts). Unlike
 * Evmos, the roots and bloom are the real ones: transactionsRoot and receiptsRoot are the tries of the
 * block's Ethereum txs and receipts, logsBloom the bloom of their logs, and stateRoot the EVM state root
 * after the block (the root eth_getProof at that block proves against).
 */
import type { Json, JsonObject } from '../../../rpc/json';
import { hexData, quantity, ZERO_HASH } from '../../../devnet/app/evm/hex';
import type { EvmBlock } from './chain-view';

/** keccak256(rlp([])): the hash of an empty uncle list. */
export const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

export function blockJson(block: EvmBlock, transactions: Json[]): JsonObject {
  const { record } = block;
  return {
    baseFeePerGas: quantity(record.baseFee),
    difficulty: '0x0',
    extraData: '0x',
    gasLimit: quantity(record.gasLimit),
    gasUsed: quantity(record.gasUsed),
    hash: hexData(block.hash),
    logsBloom: hexData(record.bloom),
    miner: hexData(block.miner),
    mixHash: ZERO_HASH,
    nonce: '0x0000000000000000',
    number: quantity(record.height),
    parentHash: block.parentHash.length === 0 ? ZERO_HASH : hexData(block.parentHash),
    receiptsRoot: hexData(record.receiptsRoot),
    sha3Uncles: EMPTY_UNCLES_HASH,
    size: quantity(block.size),
    stateRoot: hexData(record.stateRoot),
    timestamp: quantity(block.timestamp),
    totalDifficulty: '0x0',
    transactions,
    transactionsRoot: hexData(record.transactionsRoot),
    uncles: [],
  };
}
