/** The mempool's LRU cache of seen txs (mempool.LRUTxCache): what "tx already exists in cache" consults. */
export class TxCache {
  private readonly keys = new Set<string>();

  constructor(private readonly size: number) {}

  /** Adds the key; false when it was already there (it then becomes the most recent). */
  push(key: string): boolean {
    if (this.keys.delete(key)) {
      this.keys.add(key);
      return false;
    }
    this.keys.add(key);
    if (this.keys.size > this.size) this.keys.delete(this.keys.values().next().value as string);
    return true;
  }

  remove(key: string): void {
    this.keys.delete(key);
  }

  reset(): void {
    this.keys.clear();
  }
}
