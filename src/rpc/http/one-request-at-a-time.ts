import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const WAITING: unique symbol = Symbol('requests waiting on this connection');
type Waiting = (readonly [IncomingMessage, ServerResponse])[];
/** A request is being served and none waits: no list made for a connection that does not pipeline. */
const BUSY: Waiting = [];
type Connection = Socket & { [WAITING]?: Waiting };

/**
 * Serves a connection's requests one at a time, as Go's net/http serves them (CometBFT, go-ethereum).
 * Node's server parses every request a client pipelines in one write and hands each to the handler at
 * once, so a client that sends many requests and never reads the answers would have the gateway
 * compute all of them and hold every answer. Here a request pipelined behind another waits until that
 * one's answer is written out ('finish'), so a client that does not read stops its own requests: the
 * gateway holds at most one answer of it beyond what the kernel's socket buffers take. A connection that
 * ends drops what waits on it with the socket.
 */
export function oneRequestAtATime(handle: Handler): Handler {
  const start = (req: IncomingMessage, res: ServerResponse): void => {
    // One shared listener, no closure per request; 'finish' comes once.
    res.on('finish', answered);
    handle(req, res);
  };
  function answered(this: ServerResponse): void {
    const connection = this.req.socket as Connection;
    const waiting = connection[WAITING];
    const next = waiting === BUSY ? undefined : waiting?.shift();
    if (next === undefined) return void (connection[WAITING] = undefined);
    if (waiting!.length === 0) connection[WAITING] = BUSY;
    start(next[0], next[1]);
  }
  return (req, res) => {
    const connection = req.socket as Connection;
    const waiting = connection[WAITING];
    if (waiting === undefined) {
      connection[WAITING] = BUSY;
      return start(req, res);
    }
    if (waiting === BUSY) connection[WAITING] = [[req, res]];
    else waiting.push([req, res]);
  };
}
