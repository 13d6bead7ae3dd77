/**
 * The block indexer (state/indexer/block/kv): every committed height, and the indexed attributes of
 * the block's FinalizeBlock events for block_search; `block.height` filters. A search gives the event
 * loop a turn every few milliseconds while it scans.
 */
import type { Query } from '../../events/query';
import type { AbciEvent } from '../chain/types';
import { Database, heightKey, Table, WriteBatch } from '../store/database';
import { EventIndex, inHeights } from './event-index';
import { planQuery } from './query-plan';
import { TimeSlice } from './time-slice';

const BLOCK_HEIGHT_KEY = 'block.height';

export class BlockIndexer {
  private readonly heights: Table<bigint>;
  private readonly events: EventIndex;

  constructor(db: Database) {
    this.heights = db.table('block-index');
    this.events = new EventIndex(db.table('block-index-events'), [BLOCK_HEIGHT_KEY]);
  }

  /** Throws ReservedKeyError, adding nothing, if an event uses `block.height`. */
  index(batch: WriteBatch, height: bigint, events: AbciEvent[]): void {
    this.events.checkReserved(events);
    batch.put(this.heights, heightKey(height), height);
    this.events.add(batch, events, height, heightKey(height));
  }

  /** The matching heights, ascending. Stops once `signal` fires. */
  async search(query: Query, signal?: AbortSignal): Promise<bigint[]> {
    const { heights, matchers } = planQuery(query, BLOCK_HEIGHT_KEY);
    const found: bigint[] = [];
    const slice = new TimeSlice(signal);
    if (matchers.length > 0) {
      for (const entry of (await this.events.search(matchers, heights, slice)).values()) {
        await slice.pace();
        if ((await this.heights.get(entry.subject)) !== undefined) found.push(entry.height);
      }
    } else if (heights.eq !== undefined) {
      if ((await this.heights.get(heightKey(heights.eq))) !== undefined) found.push(heights.eq);
    } else if (heights.range !== undefined) {
      for await (const [, height] of this.heights.byPrefix('')) {
        await slice.pace();
        if (inHeights(heights, height)) found.push(height);
      }
    }
    return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
