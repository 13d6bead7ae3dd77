/**
 * A FIFO mempool with CometBFT's CListMempool rules: admission checks in its order (full, too large,
 * already seen), CheckTx before entry, reaping by bytes and gas, and after each block the committed
 * txs removed and the rest rechecked.
 */
import type { Application, CheckTxResult } from '../app/application';
import { txHash } from '../chain/hashing';
import { toHex } from '../bytes';
import { TxCache } from './tx-cache';
import { UpdateLock } from './update-lock';

export interface MempoolLimits {
  /** Most txs held (mempool.size). */
  size: number;
  /** Largest tx accepted (mempool.max_tx_bytes). */
  maxTxBytes: number;
  /** Most bytes held (mempool.max_txs_bytes). */
  maxTxsBytes: number;
  /** Seen txs remembered (mempool.cache_size). */
  cacheSize: number;
}

/** An admission failure; the message is CometBFT's text. */
export class MempoolError extends Error {
  override readonly name = 'MempoolError';
}

interface MempoolTx {
  tx: Uint8Array;
  gasWanted: bigint;
}

export class Mempool {
  /** hex(tx hash) → tx, in arrival order. */
  private readonly txs = new Map<string, MempoolTx>();
  private bytes = 0;
  private readonly cache: TxCache;
  private readonly lock = new UpdateLock();

  /**
   * @param maxDataBytes the most tx bytes a block can hold (TxPreCheck); it follows the validator
   * set's size, so every update() brings the new value.
   */
  constructor(
    private readonly app: Application,
    private readonly limits: MempoolLimits,
    private maxDataBytes: number,
  ) {
    this.cache = new TxCache(limits.cacheSize);
  }

  get size(): number {
    return this.txs.size;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  /**
   * Admits the tx: throws MempoolError at once when an admission check fails, otherwise runs CheckTx
   * and resolves with its result, the tx having entered the mempool if the result is OK.
   */
  add(tx: Uint8Array): Promise<CheckTxResult> {
    this.checkRoom(tx.length);
    if (tx.length > this.limits.maxTxBytes) {
      throw new MempoolError(`Tx too large. Max size is ${this.limits.maxTxBytes}, but got ${tx.length}`);
    }
    if (protoSizeOfTx(tx) > this.maxDataBytes) {
      throw new MempoolError(`tx pre check: tx size is too big: ${protoSizeOfTx(tx)}, max: ${this.maxDataBytes}`);
    }
    const key = toHex(txHash(tx));
    if (!this.cache.push(key)) throw new MempoolError('tx already exists in cache');
    return this.lock.shared(() => this.checkAndEnter(key, tx));
  }

  /** CheckTx, and entry when it passes: under the shared hold, so that no block commit comes between. */
  private async checkAndEnter(key: string, tx: Uint8Array): Promise<CheckTxResult> {
    let result: CheckTxResult;
    try {
      result = await this.app.checkTx(tx);
    } catch (err) {
      this.cache.remove(key);
      throw err;
    }
    if (result.code !== 0) {
      this.cache.remove(key);
    } else if (this.hasRoom(tx.length) && !this.txs.has(key)) {
      this.txs.set(key, { tx, gasWanted: result.gasWanted });
      this.bytes += tx.length;
    } else if (!this.txs.has(key)) {
      // Filled up while the app was checking: forget it so that it can be sent again.
      this.cache.remove(key);
    }
    return result;
  }

  /**
   * Runs a block's commit (the application's Commit, which resets its check state, and the store write)
   * and then update(), with no CheckTx in between, as CometBFT holds the mempool lock for both.
   */
  commitBlock(commit: () => Promise<void>, committed: Uint8Array[], codes: number[], reaped: Uint8Array[], maxDataBytes: number): Promise<void> {
    return this.lock.exclusive(async () => {
      await commit();
      await this.update(committed, codes, reaped, maxDataBytes);
    });
  }

  /** ReapMaxBytesMaxGas: the oldest txs whose proto size and gas fit; -1 means no limit. */
  reap(maxBytes: number, maxGas: bigint): Uint8Array[] {
    const reaped: Uint8Array[] = [];
    let bytes = 0;
    let gas = 0n;
    for (const { tx, gasWanted } of this.txs.values()) {
      bytes += protoSizeOfTx(tx);
      gas += gasWanted;
      if ((maxBytes > -1 && bytes > maxBytes) || (maxGas > -1n && gas > maxGas)) break;
      reaped.push(tx);
    }
    return reaped;
  }

  /** The first `limit` txs, oldest first. */
  list(limit: number): Uint8Array[] {
    return [...this.txs.values()].slice(0, limit).map((m) => m.tx);
  }

  /**
   * After a block: committed txs leave the mempool (failed ones may be sent again), as do the reaped
   * txs the application rewrote for the proposal; the remaining txs are checked again.
   */
  async update(committed: Uint8Array[], codes: number[], reaped: Uint8Array[], maxDataBytes: number): Promise<void> {
    this.maxDataBytes = maxDataBytes;
    committed.forEach((tx, i) => {
      const key = toHex(txHash(tx));
      if (codes[i] === 0) this.cache.push(key);
      else this.cache.remove(key);
      this.remove(key);
    });
    for (const tx of reaped) this.remove(toHex(txHash(tx)));
    for (const [key, { tx }] of [...this.txs]) {
      if ((await this.app.checkTx(tx)).code !== 0) {
        this.remove(key);
        this.cache.remove(key);
      }
    }
  }

  flush(): void {
    this.txs.clear();
    this.bytes = 0;
    this.cache.reset();
  }

  private remove(key: string): void {
    const entry = this.txs.get(key);
    if (entry === undefined) return;
    this.txs.delete(key);
    this.bytes -= entry.tx.length;
  }

  private hasRoom(txSize: number): boolean {
    return this.txs.size < this.limits.size && txSize + this.bytes <= this.limits.maxTxsBytes;
  }

  private checkRoom(txSize: number): void {
    if (this.hasRoom(txSize)) return;
    throw new MempoolError(
      `mempool is full: number of txs ${this.txs.size} (max: ${this.limits.size}), ` +
        `total txs bytes ${this.bytes} (max: ${this.limits.maxTxsBytes})`,
    );
  }
}

/** types.ComputeProtoSizeForTxs of one tx: field tag, length varint, bytes. */
export function protoSizeOfTx(tx: Uint8Array): number {
  let varint = 1;
  for (let n = tx.length; n >= 0x80; n >>>= 7) varint++;
  return 1 + varint + tx.length;
}
