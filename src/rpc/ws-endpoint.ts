import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
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

  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, req));
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

  private serve(ws: WebSocket, req: IncomingMessage): void {
    const remote = `${req.socket.remoteAddress ?? 'unix'}:${req.socket.remotePort ?? 0}`;
    const connection = new WsRpcConnection(remote, ws, this.options.sendQueue, this.options.keepAlive);
    ws.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') this.options.onOversized?.();
      ws.terminate();
    });
    ws.on('message', (data: RawData) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
      void this.engine
        .handle(bytes.toString('utf8'), { transport: 'ws', remote, bytes: bytes.length, connection })
        .then((reply) => (reply.body === undefined ? undefined : connection.send(reply.body)));
    });
  }
}
