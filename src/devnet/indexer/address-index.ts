/**
 * The address index of the EVM chain, kept as blocks commit (what an explorer's address pages need):
 *
 * - address → the txs it took part in (see tx-activity.ts), keyed by height and EVM tx index, so an
 *   address's txs are read in block order either way from any height;
 * - sender + nonce → tx hash;
 * - contract → its creator and creating tx (the latest creation, so a contract re-created at the same
 *   address names its current incarnation).
 *
 * Its entries go into the block's atomic write with the block's EVM records, with the height indexed
 * so far (a database written before the index existed is caught up on open: address-backfill.ts).
 */
import { toHex } from '../bytes';
import { heightKey, type Database, type Table, type WriteBatch } from '../store/database';
import type { TxActivity } from './tx-activity';

/** What the index takes of one executed Ethereum tx. */
export interface IndexedTx {
  hash: Uint8Array;
  sender: Uint8Array;
  nonce: bigint;
  activity: TxActivity;
}

/** A tx an address took part in. */
export interface AddressTx {
  height: bigint;
  /** EVM tx index in the block. */
  index: number;
  /** 0x-hex. */
  hash: string;
}

/** Who created a contract, and in which tx (0x-hex). */
export interface ContractCreation {
  creator: string;
  hash: string;
}

/** Blocks below (`before`) or above (`after`) a height. */
export type SearchDirection = 'before' | 'after';

/** One page of an address's txs, in the order searched, and whether more are beyond it. */
export interface AddressTxPage {
  txs: AddressTx[];
  more: boolean;
}

const HEAD_KEY = 'head';

export class AddressIndex {
  /** `<address>/<height>/<index>` → 0x tx hash. */
  private readonly txs: Table<string>;
  /** `<sender>/<nonce>` → 0x tx hash. */
  private readonly nonces: Table<string>;
  /** `<contract>` → its creation. */
  private readonly creations: Table<ContractCreation>;
  private readonly heads: Table<bigint>;

  constructor(db: Database) {
    this.txs = db.table('evm.address-txs');
    this.nonces = db.table('evm.sender-nonces');
    this.creations = db.table('evm.contract-creations');
    this.heads = db.table('evm.address-index-head');
  }

  /** The height indexed so far; undefined in a database the index has never seen. */
  indexedHeight(): Promise<bigint | undefined> {
    return this.heads.get(HEAD_KEY);
  }

  /** Marks a chain as indexed up to `height` without adding anything (a new chain, at genesis). */
  markIndexed(batch: WriteBatch, height: bigint): void {
    batch.put(this.heads, HEAD_KEY, height);
  }

  /** Adds the block's executed Ethereum txs (in EVM order) and moves the indexed height to it. */
  index(batch: WriteBatch, height: bigint, txs: readonly IndexedTx[]): void {
    txs.forEach((tx, index) => {
      const hash = hexOf(tx.hash);
      for (const address of tx.activity.participants) batch.put(this.txs, txKey(address, height, index), hash);
      batch.put(this.nonces, nonceKey(tx.sender, tx.nonce), hash);
      for (const { address, creator } of tx.activity.creations) batch.put(this.creations, toHex(address), { creator: hexOf(creator), hash });
    });
    this.markIndexed(batch, height);
  }

  /**
   * The txs `address` took part in, in blocks strictly before or after `height` (undefined: from the
   * head down, or from the first block up) and at or below `head`, nearest first: at least
   * `pageSize` of them when there are that many, and then every other one of the last block reached.
   */
  async page(address: string, direction: SearchDirection, height: bigint | undefined, pageSize: number, head: bigint): Promise<AddressTxPage> {
    const prefix = `${bare(address)}/`;
    const at = (h: bigint): string => `${prefix}${heightKey(h)}`;
    const end = at(head + 1n);
    const range =
      direction === 'before'
        ? { gte: prefix, lt: height === undefined || height > head ? end : at(height), reverse: true }
        : { gte: height === undefined ? prefix : at(height + 1n), lt: end };
    const txs: AddressTx[] = [];
    if (range.gte >= range.lt) return { txs, more: false };
    for await (const [key, hash] of this.txs.range(range)) {
      const found = parseTxKey(key, hash);
      if (txs.length > 0 && txs.length >= pageSize && found.height !== txs[txs.length - 1].height) return { txs, more: true };
      txs.push(found);
    }
    return { txs, more: false };
  }

  /** The hash of the tx `sender` sent with `nonce`, if one was executed. */
  bySenderAndNonce(sender: string, nonce: bigint): Promise<string | undefined> {
    return this.nonces.get(`${bare(sender)}/${nonceText(nonce)}`);
  }

  /** Who created the contract at `address`, and in which tx (its latest creation). */
  creation(address: string): Promise<ContractCreation | undefined> {
    return this.creations.get(bare(address));
  }
}

function txKey(address: Uint8Array, height: bigint, index: number): string {
  return `${toHex(address)}/${heightKey(height)}/${String(index).padStart(10, '0')}`;
}

function nonceKey(sender: Uint8Array, nonce: bigint): string {
  return `${toHex(sender)}/${nonceText(nonce)}`;
}

/** A nonce (uint64) as a key part that sorts numerically. */
function nonceText(nonce: bigint): string {
  return nonce.toString().padStart(20, '0');
}

function parseTxKey(key: string, hash: string): AddressTx {
  const [, height, index] = key.split('/');
  return { height: BigInt(height), index: Number(index), hash };
}

/** A 0x-hex address as the keys hold it: lower-case hex without the prefix. */
function bare(address: string): string {
  return address.toLowerCase().replace(/^0x/, '');
}

function hexOf(bytes: Uint8Array): string {
  return `0x${toHex(bytes)}`;
}
