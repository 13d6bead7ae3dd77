import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { normalizeIp } from '../../access/client-address';
import type { UnfinishedBytes, UnfinishedHold } from '../unfinished-bytes';

/** How often connections waiting for their headers are looked at. */
const SWEEP_MS = 50;
const REFUSAL = 'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';

interface Waiting {
  readonly socket: Socket;
  readonly hold: UnfinishedHold;
  /** Bytes read from the socket up to the end of its last request. */
  mark: number;
}

/**
 * Counts the headers a connection is sending against the unfinished-input budget: Node's parser keeps
 * them (up to maxHeaderSize per connection) until their last line. It reads the socket in C++ with no
 * JS event per chunk, so the connections waiting for headers are looked at every SWEEP_MS; one that
 * puts a budget over gets a 431 and is closed, which frees what its parser held. A request's body and an
 * upgraded connection are counted elsewhere. Returns what stops the sweeps.
 */
export function budgetPartialHeaders(server: Server, budget: UnfinishedBytes): () => void {
  const bySocket = new WeakMap<Socket, Waiting>();
  const waiting = new Set<Waiting>();
  server.on('connection', (socket: Socket) => {
    const entry: Waiting = { socket, hold: budget.hold(normalizeIp(socket.remoteAddress ?? 'unix')), mark: 0 };
    bySocket.set(socket, entry);
    waiting.add(entry);
    socket.once('close', () => {
      waiting.delete(entry);
      entry.hold.release();
    });
  });
  const headersIn = (req: IncomingMessage): Waiting | undefined => {
    const entry = bySocket.get(req.socket as Socket);
    if (entry === undefined) return undefined;
    waiting.delete(entry);
    entry.hold.release();
    return entry;
  };
  // Keep-alive: the next request's headers start where this one's answer ends. One shared listener
  // (no closure or once-wrapper per request); 'finish' comes once, and the server has already detached
  // the response from its socket then, so the socket is the request's.
  function answered(this: ServerResponse): void {
    const entry = bySocket.get(this.req.socket as Socket);
    if (entry === undefined || entry.socket.destroyed) return;
    entry.mark = entry.socket.bytesRead;
    waiting.add(entry);
  }
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (headersIn(req) !== undefined) res.on('finish', answered);
  });
  server.on('upgrade', (req: IncomingMessage) => void headersIn(req));
  const timer = setInterval(() => {
    for (const entry of waiting) {
      if (entry.hold.set(entry.socket.bytesRead - entry.mark)) continue;
      waiting.delete(entry);
      entry.socket.end(REFUSAL);
      entry.socket.destroy();
    }
  }, SWEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}
