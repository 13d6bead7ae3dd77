import { Injectable } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { GatewayConfigService } from '../../../config/gateway-config.service';
import { WsRpcConnection } from '../../../rpc/ws-connection';
import { JsonRpcMessageHandler } from '../../envelope/message-handler';
import { closeServer, listen } from '../listen';
import { originAllowed } from './origin-check';

/** Largest message a client may send (cosmos-evm); a bigger one closes the socket with 1009. */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Frames waiting to be written before senders (replies, notifications) wait for room. */
const SEND_QUEUE = 256;
/** go-ethereum's WebSocket keep-alive: ping every 30 s, close when nothing came back for a minute. */
const KEEP_ALIVE = { pingMs: 30_000, readTimeoutMs: 60_000 };

const PLAIN_TEXT = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };
/** What gorilla/websocket adds when it refuses a handshake. */
const WS_VERSION = { 'Sec-Websocket-Version': '13' };

/** Go's http.Error on a socket that has not become a WebSocket. */
function refuseUpgrade(socket: Duplex, status: string, text: string, headers: Record<string, string>): void {
  const lines = Object.entries({ ...PLAIN_TEXT, ...headers, Connection: 'close' }).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.end(`HTTP/1.1 ${status}\r\n${lines.join('')}\r\n${text}\n`);
}

/**
 * The EVM RPC over WebSocket on `ws-address`, path `/`: every message is a JSON-RPC body (a call, a
 * notification or a batch) answered as go-ethereum's own WebSocket server answers it.
 */
@Injectable()
export class EvmWsTransport {
  private server: Server | undefined;
  private wss: WebSocketServer | undefined;

  constructor(
    private readonly handler: JsonRpcMessageHandler,
    private readonly config: GatewayConfigService,
  ) {}

  async listen(): Promise<string> {
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, perMessageDeflate: false });
    const server = createServer((req, res) => {
      const root = (req.url ?? '').split('?')[0] === '/';
      res.writeHead(root ? 400 : 404, root ? { ...PLAIN_TEXT, ...WS_VERSION } : PLAIN_TEXT);
      res.end(root ? 'Bad Request\n' : '404 page not found\n');
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if ((req.url ?? '').split('?')[0] !== '/') return refuseUpgrade(socket, '404 Not Found', '404 page not found', {});
      if (!originAllowed(req.headers.origin, this.config.jsonRpc['ws-origins'])) return refuseUpgrade(socket, '403 Forbidden', 'Forbidden', WS_VERSION);
      wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, req));
    });
    this.server = server;
    this.wss = wss;
    return listen(server, this.config.jsonRpc['ws-address'], 'ws');
  }

  async close(): Promise<void> {
    for (const ws of this.wss?.clients ?? []) ws.terminate();
    this.wss?.close();
    if (this.server) await closeServer(this.server);
    this.server = undefined;
    this.wss = undefined;
  }

  private serve(ws: WebSocket, req: IncomingMessage): void {
    const remote = `${req.socket.remoteAddress ?? 'unix'}:${req.socket.remotePort ?? 0}`;
    const connection = new WsRpcConnection(remote, ws, SEND_QUEUE, KEEP_ALIVE);
    ws.on('error', () => ws.terminate());
    ws.on('message', (data: RawData) => void this.onMessage(connection, remote, data.toString()));
  }

  private async onMessage(connection: WsRpcConnection, remote: string, text: string): Promise<void> {
    const reply = await this.handler.handle(text, { transport: 'ws', remote, connection });
    if (reply !== undefined) await connection.send(reply);
  }
}
