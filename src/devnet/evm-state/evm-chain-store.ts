/**
 * What the devnet keeps about the EVM side of each block, next to the node's block store: the state
 * root after the block, its fee-market values, roots and bloom, and one receipt per executed Ethereum
 * transaction (the tx bytes themselves stay in the node block's `data.txs`). An index maps each
 * Ethereum tx hash to where it was executed.
 */
import type { Database, Table, WriteBatch } from '../store/database';
import { heightKey } from '../store/database';
import { toHex } from '../bytes';

export interface EvmLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** The receipt of an executed Ethereum transaction, with what its JSON forms need. */
export interface EvmTxRecord {
  /** keccak256 of the tx bytes. */
  hash: Uint8Array;
  /** Index of the tx in the node block's `data.txs`. */
  position: number;
  type: number;
  from: Uint8Array;
  to?: Uint8Array;
  contractAddress?: Uint8Array;
  status: 0 | 1;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  logs: EvmLog[];
  /** go-ethereum's text of the VM error of a failed tx. */
  vmError?: string;
  /** The data a failed tx returned (its revert data). */
  returnData?: Uint8Array;
}

export interface EvmBlockRecord {
  height: bigint;
  /** The EVM state root after the block. */
  stateRoot: Uint8Array;
  baseFee: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  bloom: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  /** In execution order: the EVM transaction index. */
  txs: EvmTxRecord[];
}

/** The latest committed EVM state: height 0 is the genesis state, before the first block. */
export interface EvmHead {
  height: bigint;
  stateRoot: Uint8Array;
}

export interface TxLocation {
  height: bigint;
  index: number;
}

const HEAD_KEY = 'head';
const GENESIS_KEY = 'genesis';

export class EvmChainStore {
  private readonly blocks: Table<EvmBlockRecord>;
  private readonly txLocations: Table<TxLocation>;
  private readonly heads: Table<EvmHead>;

  constructor(db: Database) {
    this.blocks = db.table('evm.blocks');
    this.txLocations = db.table('evm.tx-locations');
    this.heads = db.table('evm.head');
  }

  loadHead(): Promise<EvmHead | undefined> {
    return this.heads.get(HEAD_KEY);
  }

  loadGenesis(): Promise<EvmHead | undefined> {
    return this.heads.get(GENESIS_KEY);
  }

  loadBlock(height: bigint): Promise<EvmBlockRecord | undefined> {
    return this.blocks.get(heightKey(height));
  }

  locate(hash: Uint8Array): Promise<TxLocation | undefined> {
    return this.txLocations.get(toHex(hash));
  }

  saveGenesis(batch: WriteBatch, head: EvmHead): void {
    batch.put(this.heads, GENESIS_KEY, head);
    batch.put(this.heads, HEAD_KEY, head);
  }

  saveBlock(batch: WriteBatch, record: EvmBlockRecord): void {
    batch.put(this.blocks, heightKey(record.height), record);
    record.txs.forEach((tx, index) => batch.put(this.txLocations, toHex(tx.hash), { height: record.height, index }));
    batch.put(this.heads, HEAD_KEY, { height: record.height, stateRoot: record.stateRoot });
  }
}
