import type { BusEvent } from '../../events/event-bus';

/**
 * The messages of node-RPC subscription events, built for fan-out: every subscriber of an event gets
 * the same `data` and `events` and only the envelope's id and query differ, so the shared tail is
 * serialised once per event, each subscription keeps its own head, and a message is one copy of both.
 */
export class EventFrames {
  private readonly tails = new WeakMap<BusEvent, Buffer>();

  /** `{"jsonrpc":"2.0","id":<id>,"result":{"query":<query>,` — the part of a subscription's own. */
  head(requestId: unknown, query: string): Buffer {
    return Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(requestId)},"result":{"query":${JSON.stringify(query)},`);
  }

  frame(head: Buffer, event: BusEvent): Buffer {
    let tail = this.tails.get(event);
    if (tail === undefined) {
      tail = Buffer.from(`"data":${JSON.stringify(event.data)},"events":${JSON.stringify(event.events)}}}`);
      this.tails.set(event, tail);
    }
    return Buffer.concat([head, tail], head.length + tail.length);
  }
}
