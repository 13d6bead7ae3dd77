import type { OnGatewayConnection, OnGatewayInit } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PerMessageDeflateOptions, RawData, WebSocket, WebSocketServer } from 'ws';
import type { Door, Pass } from '../access/door';
import type { Caller } from './call-context';
import { frame } from './dialect';
import type { RpcEngine } from './engine';
import { errorAnswer } from './envelope';
import type { UnfinishedBytes } from './unfinished-bytes';
import { WsRpcConnection, type WsKeepAlive } from './ws-connection';
import { UnfinishedMessage } from './ws-unfinished';

export interface WsGatewayOptions {
  /** Largest message a client may send; a bigger one closes the socket with 1009. */
  readonly maxPayload: number;
  /** Frames waiting to be written before senders (answers, notifications) wait for room. */
  readonly sendQueue: number;
  readonly keepAlive: WsKeepAlive;
  /** The id of a refused handshake's JSON-RPC error (`null`), or none. */
  readonly refusalId?: string;
  /** Called when a message over `maxPayload` arrives (counted as a refusal). */
  readonly onOversized?: () => void;
  /** The budget an unfinished message counts against. */
  readonly unfinished: UnfinishedBytes;
  /** permessage-deflate offered to clients, or not (ws-deflate.ts). */
  readonly perMessageDeflate: PerMessageDeflateOptions | false;
}

/** Who a WebSocket is from, as the door admitted it, and what to do when it closes. */
interface WsSession {
  readonly caller: Caller;
  /** Called once when the connection closes, or when the upgrade fails. */
  readonly onClose?: () => void;
}

const STATUS_TEXT = { 401: 'Unauthorized', 429: 'Too Many Requests', 503: 'Service Unavailable' } as const;

/**
 * JSON-RPC over WebSocket for one interface, as a Nest gateway (on RpcWsAdapter, connected by
 * WsGateways). The interface's listener hands it every upgrade; its door admits it (path, origin, API
 * key, per-IP place) or answers the handshake; Nest then reports the connection (handleConnection), and
 * every message of the socket is a body for the engine, answered on the same connection; notifications
 * go through the connection's send queue.
 */
export abstract class JsonRpcWsGateway implements OnGatewayInit<WebSocketServer>, OnGatewayConnection<WebSocket> {
  private server: WebSocketServer | undefined;
  private readonly sessions = new WeakMap<WebSocket, WsSession>();
  private readonly open = new Set<WsRpcConnection>();

  protected constructor(
    private readonly engine: RpcEngine,
    /** Turns away what the gateway does not serve with a raw HTTP response. */
    private readonly door: Door<string>,
    private readonly options: WsGatewayOptions,
  ) {}

  /** The server Nest created for this gateway (no port of its own); the limits of the config. */
  afterInit(server: WebSocketServer): void {
    server.options.maxPayload = this.options.maxPayload;
    server.options.perMessageDeflate = this.options.perMessageDeflate;
    this.server = server;
  }

  /** Open WebSockets. */
  get connections(): number {
    return this.server?.clients.size ?? 0;
  }

  /** An upgrade on the interface's listener: through the door, then the handshake or its refusal. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const pass = this.door.pass(req);
    if (pass instanceof Promise) pass.then((p) => this.admit(req, socket, head, p), () => socket.destroy());
    else this.admit(req, socket, head, pass);
  }

  /** Nest's connection event: every message of `ws` becomes a call of the client the door admitted. */
  handleConnection(ws: WebSocket, req: IncomingMessage): void {
    const session = this.sessions.get(ws);
    this.sessions.delete(ws);
    if (session === undefined) return void ws.terminate();
    const remote = `${req.socket.remoteAddress ?? 'unix'}:${req.socket.remotePort ?? 0}`;
    const caller = session.caller;
    const unfinished = new UnfinishedMessage(ws, req.socket as Duplex & { readonly bytesRead: number }, this.options.unfinished.hold(caller.ip));
    const connection = new WsRpcConnection(remote, ws, this.options.sendQueue, this.options.keepAlive, unfinished);
    if (session.onClose) connection.onClose(session.onClose);
    ws.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') this.options.onOversized?.();
      ws.terminate();
    });
    this.open.add(connection);
    connection.onClose(() => this.open.delete(connection));
    // At most WS_MAX_IN_FLIGHT messages served at once, each until its answer is queued: past that, or
    // past the connection's outbound byte budget, the socket is not read.
    ws.on('message', (data: RawData) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
      connection.dispatch(() => this.serve(bytes, remote, caller, connection));
    });
  }

  /** What the open connections hold: bytes queued to write, messages served and waiting (summed). */
  get load(): { readonly outboundBytes: number; readonly inFlight: number; readonly waiting: number } {
    let outboundBytes = 0;
    let inFlight = 0;
    let waiting = 0;
    for (const connection of this.open) {
      outboundBytes += connection.outboundBytes;
      inFlight += connection.inbound.inFlight;
      waiting += connection.inbound.waiting;
    }
    return { outboundBytes, inFlight, waiting };
  }

  /** One message: the engine's reply, queued on the connection (awaiting room when the queue is full). */
  private async serve(bytes: Buffer, remote: string, caller: Caller, connection: WsRpcConnection): Promise<unknown> {
    // A caller over a rule on every method is refused before the message is parsed.
    const spent = this.door.spent(caller);
    if (spent) return connection.send(errorAnswer(this.engine.dialect.bodyErrorId, spent));
    const reply = await this.engine.handle(bytes.toString('utf8'), { transport: 'ws', remote, caller, bytes: bytes.length, connection, pieces: true });
    // A message that does not parse costs its rate budget too: over it, the limit's error instead.
    const limited = reply.failed ? await this.door.chargeUnparsed(caller, 'ws', remote) : undefined;
    const body = limited ? errorAnswer(this.engine.dialect.bodyErrorId, limited) : reply.body;
    if (body === undefined) return undefined;
    // An answer in pieces is joined into one frame: a copy of its bytes, never decoded to text.
    return connection.send(typeof body === 'string' ? body : frame('', body, ''));
  }

  /** Graceful stop: every WebSocket is closed with 1001; those not gone within `graceMs` are cut. */
  async closeAll(graceMs: number): Promise<void> {
    const open = [...(this.server?.clients ?? [])];
    const gone = Promise.all(open.map((ws) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve())))));
    for (const ws of open) ws.close(1001, 'server shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const ws of open) if (ws.readyState !== ws.CLOSED) ws.terminate();
  }

  private admit(req: IncomingMessage, socket: Duplex, head: Buffer, pass: Pass<string>): void {
    if ('turned' in pass) return void socket.end(pass.turned);
    if ('refused' in pass) return refuseHandshake(socket, pass.refused.status, errorAnswer(this.options.refusalId, pass.refused.error));
    const server = this.server;
    if (server === undefined) {
      pass.release?.();
      return void socket.destroy();
    }
    const release = pass.release === undefined ? undefined : once(pass.release);
    // A handshake that fails destroys the socket without a WebSocket: the place is released there too.
    if (release) socket.once('close', release);
    server.handleUpgrade(req, socket, head, (ws) => {
      this.sessions.set(ws, { caller: pass.caller, onClose: release });
      server.emit('connection', ws, req);
    });
  }
}

/** Refuses a handshake with `status` and a JSON-RPC error body, then closes. */
function refuseHandshake(socket: Duplex, status: 401 | 429 | 503, body: string): void {
  const auth = status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '';
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json\r\n${auth}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}
