import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Caller } from './call-context';
import type { RpcEngine } from './engine';
import { WsRpcConnection, type WsKeepAlive } from './ws-connection';

export interface WsEndpointOptions {
  /** Largest message a client may send; a bigger one closes the socket with 1009. */
  readonly maxPayload: number;
  /** Frames waiting to be written before senders (answers, notifications) wait for room. */
  readonly sendQueue: number;
  readonly keepAlive: WsKeepAlive;
  /** Called when a message over `maxPayload` arrives (counted as a refusal). */
  readonly onOversized?: () => void;
}

/** Who a WebSocket is from, as the transport admitted it, and what to do when it closes. */
export interface WsSession {
  readonly caller?: Caller;
  /** Called once when the connection closes, or when the upgrade fails. */
  readonly onClose?: () => void;
}

/**
 * JSON-RPC over WebSocket for one interface: each message is a body for the engine, its answer goes
 * back on the same connection, notifications through the connection's send queue. Transports accept
 * the upgrade (their paths and origin rules) and hand the socket over.
 */
export class WsEndpoint {
  private readonly wss: WebSocketServer;

  constructor(
    private readonly engine: RpcEngine,
    private readonly options: WsEndpointOptions,
  ) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload, perMessageDeflate: false });
  }

  /** Open WebSockets. */
  get connections(): number {
    return this.wss.clients.size;
  }

  /** Completes the upgrade; every message of the connection is a call of `session.caller`. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, session: WsSession = {}): void {
    if (session.onClose) {
      // A handshake that fails destroys the socket without a WebSocket: release there too.
      let closed = false;
      const close = session.onClose;
      const once = () => {
        if (closed) return;
        closed = true;
        close();
      };
      socket.once('close', once);
      session = { ...session, onClose: once };
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, req, session));
  }

  /** Graceful stop: every WebSocket is closed with 1001; those not gone within `graceMs` are cut. */
  async closeAll(graceMs: number): Promise<void> {
    const open = [...this.wss.clients];
    const gone = Promise.all(open.map((ws) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve())))));
    for (const ws of open) ws.close(1001, 'server shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const ws of open) if (ws.readyState !== ws.CLOSED) ws.terminate();
    this.wss.close();
  }

  private serve(ws: WebSocket, req: IncomingMessage, session: WsSession): void {
    const remote = `${req.socket.remoteAddress ?? 'unix'}:${req.socket.remotePort ?? 0}`;
    const caller = session.caller;
    const connection = new WsRpcConnection(remote, ws, this.options.sendQueue, this.options.keepAlive);
    if (session.onClose) connection.onClose(session.onClose);
    ws.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') this.options.onOversized?.();
      ws.terminate();
    });
    ws.on('message', (data: RawData) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
      void this.engine
        .handle(bytes.toString('utf8'), { transport: 'ws', remote, caller, bytes: bytes.length, connection })
        .then((reply) => (reply.body === undefined ? undefined : connection.send(reply.body)));
    });
  }
}
