/**
 * The EVM genesis block: block 0 of the EVM chain, the block whose state is the genesis state (the
 * accounts InitChain funded), before CometBFT's first block. CometBFT has no block at height 0, so this
 * block exists on the EVM side only: its header is a real Ethereum header (Cancun fields, no
 * transactions, the genesis state root, the genesis time, the first block's gas limit and base fee) and
 * its hash is that header's Keccak-256, which the first block names as its parent hash.
 */
import { createBlock, createBlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { KECCAK256_RLP } from '@ethereumjs/util';
import type { EvmBlockRecord } from './evm-chain-store';

export interface GenesisBlockInputs {
  /** The block's number: one below the chain's initial height (0 for a chain starting at 1). */
  number: bigint;
  stateRoot: Uint8Array;
  /** Genesis time, in seconds. */
  timestamp: bigint;
  gasLimit: bigint;
  baseFee: bigint;
}

export interface EvmGenesisBlock {
  hash: Uint8Array;
  /** Size of the RLP-encoded block. */
  size: number;
  timestamp: bigint;
  /** As the chain's other blocks are kept: no transactions, empty tries and bloom. */
  record: EvmBlockRecord;
}

export function evmGenesisBlock(inputs: GenesisBlockInputs, common: Common): EvmGenesisBlock {
  const header = createBlockHeader(
    {
      number: inputs.number,
      stateRoot: inputs.stateRoot,
      timestamp: inputs.timestamp,
      gasLimit: inputs.gasLimit,
      baseFeePerGas: inputs.baseFee,
      difficulty: 0n,
      transactionsTrie: KECCAK256_RLP,
      receiptTrie: KECCAK256_RLP,
    },
    { common, skipConsensusFormatValidation: true },
  );
  const block = createBlock({ header, withdrawals: [] }, { common });
  return {
    hash: header.hash(),
    size: block.serialize().length,
    timestamp: inputs.timestamp,
    record: {
      height: inputs.number,
      stateRoot: inputs.stateRoot,
      baseFee: inputs.baseFee,
      gasLimit: inputs.gasLimit,
      gasUsed: 0n,
      bloom: new Uint8Array(256),
      transactionsRoot: KECCAK256_RLP,
      receiptsRoot: KECCAK256_RLP,
      txs: [],
    },
  };
}
