import { Injectable, Optional, type OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { MetricsService, surfaceMeters, type SurfaceMeters } from '../../metrics/metrics.service';
import { WsRpcConnection } from '../../rpc/ws-connection';
import { NodeDispatcher } from '../node-dispatcher';
import { parseJsonRpcBody, serializeResponse } from './jsonrpc-envelope';

/** CometBFT's WebSocket timings: ping every 27 s, read deadline 30 s. */
const KEEP_ALIVE = { pingMs: 27_000, readTimeoutMs: 30_000 };

/**
 * The node RPC over WebSocket (`/websocket`): one JSON-RPC request per message, no batches;
 * notifications are skipped; every method is callable (CometBFT does not check the WS-only flag
 * in this direction).
 */
@Injectable()
export class NodeWsTransport implements OnApplicationShutdown {
  private readonly wss: WebSocketServer;
  private readonly meters: SurfaceMeters;

  constructor(
    private readonly dispatcher: NodeDispatcher,
    private readonly config: GatewayConfigService,
    @Optional() metrics?: MetricsService,
  ) {
    this.meters = surfaceMeters(metrics, 'node');
    this.wss = new WebSocketServer({ noServer: true, maxPayload: config.rpc.max_body_bytes, perMessageDeflate: false });
  }

  /** Serves upgrades of `/websocket` on the given HTTP server. */
  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/websocket') {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n404 page not found\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, req));
    });
  }

  connections(): number {
    return this.wss.clients.size;
  }

  /** Graceful stop: every WebSocket is closed with 1001; those not gone within `graceMs` are cut. */
  async closeAll(graceMs: number): Promise<void> {
    const open = [...this.wss.clients];
    if (open.length === 0) return;
    const gone = Promise.all(open.map((ws) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve())))));
    for (const ws of open) ws.close(1001, 'server shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const ws of open) if (ws.readyState !== ws.CLOSED) ws.terminate();
  }

  onApplicationShutdown(): void {
    for (const ws of this.wss.clients) ws.close(1001, 'server shutting down');
    this.wss.close();
  }

  private serve(ws: WebSocket, req: IncomingMessage): void {
    const remote = `${req.socket.remoteAddress ?? 'unix'}:${req.socket.remotePort ?? 0}`;
    const connection = new WsRpcConnection(remote, ws, this.config.rpc.experimental_websocket_write_buffer_size, KEEP_ALIVE);
    ws.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') this.meters.refuse('max_body_bytes');
      ws.terminate();
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      this.meters.ws.requestBytes.inc(Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength);
      void this.onMessage(connection, remote, isBinary ? '' : data.toString());
    });
  }

  private async onMessage(connection: WsRpcConnection, remote: string, text: string): Promise<void> {
    const parsed = parseJsonRpcBody(text, false);
    if (!parsed.ok) {
      this.meters.rejected('ws', parsed.error.code);
      await connection.send(this.meters.counted(this.meters.ws, serializeResponse(undefined, { error: parsed.error })));
      return;
    }
    const request = parsed.requests[0];
    if (request.notification) return;
    const outcome = await this.dispatcher.dispatch(request, { transport: 'ws', remote, requestId: request.id, connection });
    await connection.send(this.meters.counted(this.meters.ws, serializeResponse(request.id, outcome.ok ? { result: outcome.result } : { error: outcome.error })));
  }
}
