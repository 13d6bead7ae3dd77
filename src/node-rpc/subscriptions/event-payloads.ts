import type { BusEvent } from '../../events/event-bus';

/**
 * The results of node-RPC subscription events, built for fan-out: every subscriber of an event gets
 * the same `data` and `events` and only the query differs, so the shared tail is serialised once per
 * event and each subscription keeps its own head; the dialect frames the two pieces.
 */
export class EventPayloads {
  private readonly tails = new WeakMap<BusEvent, Buffer>();

  /** `{"query":<query>,` — the part of a subscription's own. */
  head(query: string): Buffer {
    return Buffer.from(`{"query":${JSON.stringify(query)},`);
  }

  tail(event: BusEvent): Buffer {
    let tail = this.tails.get(event);
    if (tail === undefined) {
      tail = Buffer.from(`"data":${JSON.stringify(event.data)},"events":${JSON.stringify(event.events)}}`);
      this.tails.set(event, tail);
    }
    return tail;
  }
}
