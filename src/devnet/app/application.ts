/**
 * The ABCI 2.0 surface the devnet drives, reduced to what a single in-process node needs. The kvstore
 * implements it; an EVM application can implement it too and be composed beside the kvstore, each
 * transaction going to the application that accepts it.
 */
import type { AbciEvent, ExecTxResult, Timestamp } from '../chain/types';
import type { WriteBatch } from '../store/database';

/** ResponseCheckTx carries the same fields as ExecTxResult in ABCI 2.0. */
export type CheckTxResult = ExecTxResult;

/** An ABCI ValidatorUpdate; power 0 removes the validator. */
export interface ValidatorUpdate {
  /** 'ed25519' (the only type the devnet's consensus params allow). */
  keyType: string;
  pubKey: Uint8Array;
  power: bigint;
}

export interface FinalizeBlockRequest {
  height: bigint;
  time: Timestamp;
  txs: Uint8Array[];
  hash: Uint8Array;
  proposerAddress: Uint8Array;
}

/** ResponseFinalizeBlock; the devnet keeps its consensus params, so there are no param updates. */
export interface FinalizeBlockResult {
  events: AbciEvent[];
  txResults: ExecTxResult[];
  validatorUpdates: ValidatorUpdate[];
  appHash: Uint8Array;
}

export interface QueryRequest {
  path: string;
  data: Uint8Array;
  height: bigint;
  prove: boolean;
}

/** ResponseQuery; the kvstore never returns proof ops. */
export interface QueryResult {
  code: number;
  log: string;
  info: string;
  index: bigint;
  key: Uint8Array;
  value: Uint8Array;
  height: bigint;
  codespace: string;
}

export interface InfoResult {
  data: string;
  version: string;
  appVersion: bigint;
  lastBlockHeight: bigint;
  lastBlockAppHash: Uint8Array;
}

export interface Application {
  info(): Promise<InfoResult>;
  /** Called once, before the first block; returns the initial app hash. */
  initChain(validators: ValidatorUpdate[], batch: WriteBatch): Promise<Uint8Array>;
  checkTx(tx: Uint8Array): Promise<CheckTxResult>;
  /** The txs to propose, from the mempool's reaped ones (the app may drop or rewrite them). */
  prepareProposal(txs: Uint8Array[]): Promise<Uint8Array[]>;
  finalizeBlock(request: FinalizeBlockRequest): Promise<FinalizeBlockResult>;
  /** Adds the finalized block's state changes to the block's atomic write. */
  commit(batch: WriteBatch): void;
  query(request: QueryRequest): Promise<QueryResult>;
}
