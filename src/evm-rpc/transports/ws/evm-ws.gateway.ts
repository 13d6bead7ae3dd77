import { Inject, Optional, type OnModuleInit } from '@nestjs/common';
import { WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AccessService } from '../../../access/access.service';
import { Door } from '../../../access/door';
import { GatewayConfigService } from '../../../config/gateway-config.service';
import type { RpcEngine } from '../../../rpc/engine';
import { LimitError } from '../../../rpc/errors';
import { Listeners } from '../../../rpc/listeners';
import { RPC_ENGINE } from '../../../rpc/registration';
import { UnfinishedBytes } from '../../../rpc/unfinished-bytes';
import { wsDeflateOf } from '../../../rpc/ws-deflate';
import { JsonRpcWsGateway } from '../../../rpc/ws-gateway';
import { evmListenerBase } from '../evm-listener';
import { originAllowed } from './origin-check';

/** go-ethereum's WebSocket keep-alive: ping every 30 s, close when nothing came back for a minute. */
const KEEP_ALIVE = { pingMs: 30_000, readTimeoutMs: 60_000 };
const PLAIN_TEXT = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };
/** What gorilla/websocket adds when it refuses a handshake. */
const WS_VERSION = { 'Sec-Websocket-Version': '13' };

/** Go's http.Error on a socket that has not become a WebSocket. */
function plainRefusal(status: string, text: string, headers: Record<string, string>): string {
  const lines = Object.entries({ ...PLAIN_TEXT, ...headers, Connection: 'close' }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `HTTP/1.1 ${status}\r\n${lines.join('')}\r\n${text}\n`;
}

const NOT_FOUND = plainRefusal('404 Not Found', '404 page not found', {});
const FORBIDDEN = plainRefusal('403 Forbidden', 'Forbidden', WS_VERSION);

/**
 * The EVM RPC over WebSocket on its own listener, `ws-address`, path `/`: every message is a JSON-RPC
 * body (a call, a notification or a batch) answered as go-ethereum's own WebSocket server answers it.
 */
@WebSocketGateway({ path: '/' })
export class EvmWsGateway extends JsonRpcWsGateway implements OnModuleInit {
  constructor(
    @Inject(RPC_ENGINE.evm) engine: RpcEngine,
    private readonly config: GatewayConfigService,
    private readonly listeners: Listeners,
    unfinished: UnfinishedBytes,
    @Optional() access?: AccessService,
  ) {
    const door = new Door(access, 'evm', engine.dialect, {
      route: (url, req) => {
        if (url.split('?')[0] !== '/') return NOT_FOUND;
        return originAllowed(req.headers.origin, config.jsonRpc['ws-origins']) ? undefined : FORBIDDEN;
      },
      place: { kind: 'ws', capReached: (key, max) => new LimitError(key, 'limit exceeded', -32005, `${key} ${max} reached`) },
    });
    // cosmos-evm's largest message, and go-ethereum's send queue.
    super(engine, door, { maxPayload: 1024 * 1024, sendQueue: 256, keepAlive: KEEP_ALIVE, refusalId: 'null', unfinished, perMessageDeflate: wsDeflateOf(config.gateway.compression) });
  }

  onModuleInit(): void {
    const base = evmListenerBase(this.config, 'ws-address');
    if (base === undefined) return;
    this.listeners.add({
      ...base,
      handle: (req, res) => this.onPlainRequest(req, res),
      upgrade: (req, socket, head) => this.upgrade(req, socket, head),
      websockets: this,
    });
  }

  private onPlainRequest(req: IncomingMessage, res: ServerResponse): void {
    const root = (req.url ?? '').split('?')[0] === '/';
    res.writeHead(root ? 400 : 404, root ? { ...PLAIN_TEXT, ...WS_VERSION } : PLAIN_TEXT);
    res.end(root ? 'Bad Request\n' : '404 page not found\n');
  }
}
