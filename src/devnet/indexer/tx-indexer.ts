/**
 * The tx indexer (state/txindex/kv): every committed tx by hash and by height, and its events'
 * indexed attributes for tx_search. `tx.hash` in a query is a direct lookup; `tx.height` filters. A
 * search gives the event loop a turn every few milliseconds while it scans.
 */
import type { Query } from '../../events/query';
import { decodeGoHex, toHex } from '../bytes';
import { txHash } from '../chain/hashing';
import type { TxRecord } from '../producer/chain-state';
import { Database, heightKey, Table, WriteBatch } from '../store/database';
import { EventIndex, inHeights } from './event-index';
import { planQuery } from './query-plan';
import { TimeSlice } from './time-slice';

const TX_HASH_KEY = 'tx.hash';
const TX_HEIGHT_KEY = 'tx.height';

export class TxIndexer {
  private readonly byHash: Table<TxRecord>;
  /** height/index → hex(tx hash). */
  private readonly byHeight: Table<string>;
  private readonly events: EventIndex;

  constructor(db: Database) {
    this.byHash = db.table('tx-index');
    this.byHeight = db.table('tx-index-heights');
    this.events = new EventIndex(db.table('tx-index-events'), [TX_HASH_KEY, TX_HEIGHT_KEY]);
  }

  /** Indexes a block's txs (AddBatch); throws ReservedKeyError, adding nothing, if a tx uses a reserved key. */
  index(batch: WriteBatch, records: TxRecord[]): void {
    for (const record of records) this.events.checkReserved(record.result.events);
    for (const record of records) {
      const hash = toHex(txHash(record.tx));
      this.events.add(batch, record.result.events, record.height, hash);
      batch.put(this.byHeight, heightIndexKey(record.height, record.index), hash);
      batch.put(this.byHash, hash, record);
    }
  }

  get(hash: Uint8Array): Promise<TxRecord | undefined> {
    return this.byHash.get(toHex(hash));
  }

  /** The matching txs, in no particular order; errors carry CometBFT's texts. Stops once `signal` fires. */
  async search(query: Query, signal?: AbortSignal): Promise<TxRecord[]> {
    const hashCondition = query.conditions.find((c) => c.tag === TX_HASH_KEY);
    if (hashCondition !== undefined) return this.lookUp(hashCondition.op === 'EXISTS' ? '' : hashCondition.arg.value);
    const { heights, matchers } = planQuery(query, TX_HEIGHT_KEY);
    const slice = new TimeSlice(signal);
    const records: TxRecord[] = [];
    if (matchers.length > 0) {
      for (const hash of (await this.events.search(matchers, heights, slice)).keys()) {
        await slice.pace();
        const record = await this.byHash.get(hash);
        if (record !== undefined) records.push(record);
      }
      return records;
    }
    if (heights.eq === undefined && heights.range === undefined) return [];
    const prefix = heights.eq !== undefined ? `${heightKey(heights.eq)}/` : '';
    for await (const [, hash] of this.byHeight.byPrefix(prefix)) {
      await slice.pace();
      const record = await this.byHash.get(hash);
      if (record !== undefined && inHeights(heights, record.height)) records.push(record);
    }
    return records;
  }

  private async lookUp(hashText: string): Promise<TxRecord[]> {
    const hash = decodeGoHex(hashText);
    if (!(hash instanceof Uint8Array)) throw new Error(`error during searching for a hash in the query: ${hash.error}`);
    if (hash.length === 0) throw new Error('error while retrieving the result: transaction hash cannot be empty');
    const record = await this.get(hash);
    return record === undefined ? [] : [record];
  }
}

function heightIndexKey(height: bigint, index: number): string {
  return `${heightKey(height)}/${String(index).padStart(10, '0')}`;
}
