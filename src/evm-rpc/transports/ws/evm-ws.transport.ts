import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AccessService, keyRefusalStatus } from '../../../access/access.service';
import { enter, type Entry } from '../../../access/door';
import { GatewayConfigService } from '../../../config/gateway-config.service';
import type { RpcEngine } from '../../../rpc/engine';
import { errorAnswer } from '../../../rpc/envelope';
import { LimitError } from '../../../rpc/errors';
import { Listeners } from '../../../rpc/listeners';
import { RPC_ENGINE } from '../../../rpc/registration';
import { WsEndpoint } from '../../../rpc/ws-endpoint';
import { originAllowed } from './origin-check';

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

/** A refused handshake with a JSON-RPC error body. */
function refuseJson(socket: Duplex, status: string, body: string, headers: Record<string, string>): void {
  const lines = Object.entries({ 'Content-Type': 'application/json', ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.end(`HTTP/1.1 ${status}\r\n${lines.join('')}\r\n${body}`);
}

/**
 * The EVM RPC over WebSocket on `ws-address`, path `/`: every message is a JSON-RPC body (a call, a
 * notification or a batch) answered as go-ethereum's own WebSocket server answers it.
 */
@Injectable()
export class EvmWsTransport implements OnModuleInit {
  private readonly websockets: WsEndpoint;

  constructor(
    @Inject(RPC_ENGINE.evm) private readonly engine: RpcEngine,
    private readonly config: GatewayConfigService,
    private readonly listeners: Listeners,
    @Optional() private readonly access?: AccessService,
  ) {
    // cosmos-evm's largest message, and go-ethereum's send queue.
    this.websockets = new WsEndpoint(engine, { maxPayload: 1024 * 1024, sendQueue: 256, keepAlive: KEEP_ALIVE });
  }

  onModuleInit(): void {
    const rpc = this.config.jsonRpc;
    if (!rpc.enable) return;
    this.listeners.add({
      rpc: 'evm',
      address: rpc['ws-address'],
      scheme: 'ws',
      maxConnections: rpc['max-open-connections'],
      handle: (req, res) => this.onPlainRequest(req, res),
      upgrade: (req, socket, head) => this.onUpgrade(req, socket, head),
      websockets: this.websockets,
    });
  }

  private onPlainRequest(req: IncomingMessage, res: ServerResponse): void {
    const root = (req.url ?? '').split('?')[0] === '/';
    res.writeHead(root ? 400 : 404, root ? { ...PLAIN_TEXT, ...WS_VERSION } : PLAIN_TEXT);
    res.end(root ? 'Bad Request\n' : '404 page not found\n');
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const entry = enter(this.access, req);
    if (entry instanceof Promise) entry.then((e) => this.upgrade(req, socket, head, e), () => socket.destroy());
    else this.upgrade(req, socket, head, entry);
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, entry: Entry): void {
    if (entry.url.split('?')[0] !== '/') return refuseUpgrade(socket, '404 Not Found', '404 page not found', {});
    if (!originAllowed(req.headers.origin, this.config.jsonRpc['ws-origins'])) return refuseUpgrade(socket, '403 Forbidden', 'Forbidden', WS_VERSION);
    if ('refused' in entry) {
      this.access?.refused('evm', entry.refused);
      const status = keyRefusalStatus(entry.refused);
      const body = errorAnswer('null', this.engine.dialect.unauthorized(entry.refused));
      return refuseJson(socket, status === 401 ? '401 Unauthorized' : '503 Service Unavailable', body, status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {});
    }
    const release = this.access?.takeIpPlace('evm', 'ws', entry.caller.ip);
    if (this.access && !release) {
      const { key, max } = this.access.capOf('ws');
      return refuseJson(socket, '429 Too Many Requests', errorAnswer('null', new LimitError(key, 'limit exceeded', -32005, `${key} ${max} reached`)), {});
    }
    this.websockets.accept(req, socket, head, { caller: entry.caller, onClose: release });
  }
}
