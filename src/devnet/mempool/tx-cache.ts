/** The mempool's LRU cache of seen txs (mempool.LRUTxCache): what "tx already exists in cache" consults. */
import { LRUCache } from 'lru-cache';

export class TxCache {
  private readonly keys: LRUCache<string, true>;

  constructor(size: number) {
    this.keys = new LRUCache({ max: size });
  }

  /** Adds the key; false when it was already there (it then becomes the most recent). */
  push(key: string): boolean {
    if (this.keys.get(key)) return false;
    this.keys.set(key, true);
    return true;
  }

  remove(key: string): void {
    this.keys.delete(key);
  }

  reset(): void {
    this.keys.clear();
  }
}
