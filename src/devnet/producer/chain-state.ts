/** What the node knows after the last committed block (CometBFT's sm.State), and the records it stores per block. */
import type { BlockId, ConsensusParams, ExecTxResult, Header, Timestamp } from '../chain/types';
import type { ValidatorSet } from './validator-set';

export interface ChainState {
  chainId: string;
  initialHeight: bigint;
  /** 0 before the first block. */
  lastBlockHeight: bigint;
  lastBlockId: BlockId;
  /** The genesis time before the first block. */
  lastBlockTime: Timestamp;
  /** The set that signed the last block. */
  lastValidators: ValidatorSet;
  /** The set for lastBlockHeight + 1. */
  validators: ValidatorSet;
  /** The set for lastBlockHeight + 2 (validator updates of a block apply two heights later). */
  nextValidators: ValidatorSet;
  /** The params for lastBlockHeight + 1. */
  consensusParams: ConsensusParams;
  /** Empty before the first block. */
  lastResultsHash: Uint8Array;
  appHash: Uint8Array;
  /** version.Consensus.App: the application's version from Info. */
  appVersion: bigint;
}

/** CometBFT's BlockMeta: what the header-only RPCs read without loading the block. */
export interface BlockMeta {
  blockId: BlockId;
  /** Size of the block's protobuf encoding. */
  blockSize: number;
  header: Header;
  numTxs: number;
}

/** abci.TxResult: a committed tx and its result, as the tx indexer keeps it. */
export interface TxRecord {
  height: bigint;
  index: number;
  tx: Uint8Array;
  result: ExecTxResult;
}
