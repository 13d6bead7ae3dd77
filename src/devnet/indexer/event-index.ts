/**
 * The event part of CometBFT's kv indexers: one entry per indexed attribute of an event
 * (`type.key`, value, height, subject, position of the event), searched condition by condition and
 * intersected per event, so that every condition of a query holds within one event. A search gives the
 * event loop a turn every few milliseconds while it scans.
 */
import type { AbciEvent } from '../chain/types';
import { conditionMatchesValue } from '../../events/query';
import { heightKey, Table, WriteBatch } from '../store/database';
import { withinBounds } from './numeric-bounds';
import { TimeSlice } from './time-slice';
import type { AttributeMatcher, HeightFilter } from './query-plan';

export interface IndexEntry {
  /** What the index points at: a tx hash or a block height, as a key. */
  subject: string;
  height: bigint;
  /** The event's position among the subject's events. */
  seq: number;
  value: string;
}

/** An app event that reuses a composite key the indexer reserves for itself. */
export class ReservedKeyError extends Error {
  override readonly name = 'ReservedKeyError';

  constructor(key: string) {
    super(`event type and attribute key "${key}" is reserved; please use a different key`);
  }
}

export class EventIndex {
  constructor(
    private readonly table: Table<IndexEntry>,
    private readonly reservedKeys: readonly string[],
  ) {}

  /** Throws ReservedKeyError, before anything is added, when an event uses a reserved key. */
  checkReserved(events: AbciEvent[]): void {
    for (const event of events) {
      if (event.type === '') continue;
      for (const { key } of event.attributes) {
        const tag = `${event.type}.${key}`;
        if (key !== '' && this.reservedKeys.includes(tag)) throw new ReservedKeyError(tag);
      }
    }
  }

  add(batch: WriteBatch, events: AbciEvent[], height: bigint, subject: string): void {
    events.forEach((event, seq) => {
      if (event.type === '') return;
      for (const { key, value, index } of event.attributes) {
        if (key === '' || !index) continue;
        const entryKey = `${prefixOf(`${event.type}.${key}`, value)}${heightKey(height)}/${subject}/${seq}`;
        batch.put(this.table, entryKey, { subject, height, seq, value });
      }
    });
  }

  /**
   * Subjects whose events satisfy every matcher within a single event, in the height filter; keyed
   * by subject (the entry is one of the matching events).
   */
  async search(matchers: AttributeMatcher[], heights: HeightFilter, slice = new TimeSlice()): Promise<Map<string, IndexEntry>> {
    let events: Map<string, IndexEntry> | undefined;
    for (const matcher of matchers) {
      const found = await this.match(matcher, heights, slice);
      events = events === undefined ? found : new Map([...events].filter(([key]) => found.has(key)));
      if (events.size === 0) break;
    }
    const subjects = new Map<string, IndexEntry>();
    for (const entry of events?.values() ?? []) subjects.set(entry.subject, entry);
    return subjects;
  }

  /** The events (keyed subject/seq) with an attribute the matcher accepts. */
  private async match(matcher: AttributeMatcher, heights: HeightFilter, slice: TimeSlice): Promise<Map<string, IndexEntry>> {
    const exact = matcher.kind === 'condition' && matcher.condition.op === '=' ? matcher.condition.arg.value : undefined;
    const accepts =
      matcher.kind === 'range'
        ? (value: string) => withinBounds(matcher.bounds, value)
        : exact !== undefined
          ? () => true
          : (value: string) => conditionMatchesValue(matcher.condition, value);
    const found = new Map<string, IndexEntry>();
    const prefix = exact !== undefined ? prefixOf(matcher.tag, exact) : `${escapePart(matcher.tag)}/`;
    for await (const [, entry] of this.table.byPrefix(prefix)) {
      await slice.pace();
      if (inHeights(heights, entry.height) && accepts(entry.value)) found.set(`${entry.subject}/${entry.seq}`, entry);
    }
    return found;
  }
}

export function inHeights(heights: HeightFilter, height: bigint): boolean {
  if (heights.range !== undefined) return withinBounds(heights.range, height);
  return heights.eq === undefined || heights.eq === 0n || heights.eq === height;
}

function prefixOf(tag: string, value: string): string {
  return `${escapePart(tag)}/${escapePart(value)}/`;
}

/** Escapes `/` (and `%`), so that the parts of an entry key stay apart. */
function escapePart(text: string): string {
  return text.replace(/%/g, '%25').replace(/\//g, '%2F');
}
