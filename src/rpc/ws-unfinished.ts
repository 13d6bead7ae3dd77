import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { UnfinishedHold } from './unfinished-bytes';

/** Header bytes of a control frame from a client: 2, and the 4 of its mask (payload at most 125). */
const CONTROL_HEADER = 6;

/**
 * The message a WebSocket client is sending and has not finished (its frames so far, which `ws` keeps
 * up to maxPayload), held against the unfinished-input budget: what the socket read since the last
 * message completed, pings and pongs aside. Past a budget the connection is closed with 1009 and cut
 * (the client is still sending); what it held is given back when it closes.
 */
export class UnfinishedMessage {
  private mark: number;
  private since: number | undefined;

  constructor(ws: WebSocket, socket: Duplex & { readonly bytesRead: number }, hold: UnfinishedHold) {
    this.mark = socket.bytesRead;
    // `ws` reads the socket first: the events of a chunk come before this listener sees it.
    ws.on('message', () => {
      this.mark = socket.bytesRead;
      this.since = undefined;
      hold.set(0);
    });
    const control = (data: Buffer) => (this.mark += data.length + CONTROL_HEADER);
    ws.on('ping', control);
    ws.on('pong', control);
    socket.on('data', () => {
      const bytes = socket.bytesRead - this.mark;
      if (bytes > 0) this.since ??= Date.now();
      if (hold.set(bytes)) return;
      ws.close(1009, 'unfinished messages over budget');
      ws.terminate();
    });
    ws.once('close', () => hold.release());
  }

  /** When the message being received started; undefined when none is. */
  get startedAt(): number | undefined {
    return this.since;
  }

  /** The gateway stopped reading the connection: the message cannot be held against the client. */
  restartClock(now: number): void {
    if (this.since !== undefined) this.since = now;
  }
}
