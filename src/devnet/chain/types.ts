/**
 * The devnet's own block model: the CometBFT v0.38 data structures with binary fields as bytes and
 * int64 values as bigint. `wire.ts` turns them into CometBFT's JSON; `hashing.ts` hashes them the
 * way CometBFT does.
 */

/** A point in time with nanosecond precision (CometBFT timestamps carry nanoseconds). */
export interface Timestamp {
  seconds: bigint;
  nanos: number;
}

export interface PartSetHeader {
  total: number;
  hash: Uint8Array;
}

export interface BlockId {
  hash: Uint8Array;
  partSetHeader: PartSetHeader;
}

export interface Header {
  version: { block: bigint; app: bigint };
  chainId: string;
  height: bigint;
  time: Timestamp;
  lastBlockId: BlockId;
  lastCommitHash: Uint8Array;
  dataHash: Uint8Array;
  validatorsHash: Uint8Array;
  nextValidatorsHash: Uint8Array;
  consensusHash: Uint8Array;
  appHash: Uint8Array;
  lastResultsHash: Uint8Array;
  evidenceHash: Uint8Array;
  proposerAddress: Uint8Array;
}

/** 1 = absent, 2 = commit, 3 = nil. */
export type BlockIdFlag = 1 | 2 | 3;

export interface CommitSig {
  blockIdFlag: BlockIdFlag;
  validatorAddress: Uint8Array;
  timestamp: Timestamp;
  signature: Uint8Array;
}

export interface Commit {
  height: bigint;
  round: number;
  blockId: BlockId;
  signatures: CommitSig[];
}

export interface Block {
  header: Header;
  txs: Uint8Array[];
  /** The devnet never produces evidence; kept for the shape. */
  evidence: never[];
  lastCommit: Commit;
}

export interface Validator {
  address: Uint8Array;
  /** ed25519 public key, 32 bytes. */
  pubKey: Uint8Array;
  votingPower: bigint;
  proposerPriority: bigint;
}

export interface EventAttribute {
  key: string;
  value: string;
  index: boolean;
}

export interface AbciEvent {
  type: string;
  attributes: EventAttribute[];
}

/** ABCI ExecTxResult (also used for CheckTx results, which carry the same fields we use). */
export interface ExecTxResult {
  code: number;
  data: Uint8Array;
  log: string;
  info: string;
  gasWanted: bigint;
  gasUsed: bigint;
  events: AbciEvent[];
  codespace: string;
}

export interface ConsensusParams {
  block: { maxBytes: bigint; maxGas: bigint };
  evidence: { maxAgeNumBlocks: bigint; maxAgeDurationNs: bigint; maxBytes: bigint };
  validator: { pubKeyTypes: string[] };
  version: { app: bigint };
  abci: { voteExtensionsEnableHeight: bigint };
}
