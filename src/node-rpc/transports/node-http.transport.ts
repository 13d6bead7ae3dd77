import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { requestIdGenerator } from '../../logging/gateway-logger';
import { MetricsService } from '../../metrics/metrics.service';
import type { CallContext } from '../../rpc/call-context';
import type { RpcEngine } from '../../rpc/engine';
import { errorAnswer } from '../../rpc/envelope';
import { MethodNotFoundError } from '../../rpc/errors';
import { readBody } from '../../rpc/http/body-reader';
import { corsOf, type Cors, type HeaderList } from '../../rpc/http/cors';
import { httpError } from '../../rpc/http/plain-replies';
import { Listeners } from '../../rpc/listeners';
import { RPC_ENGINE } from '../../rpc/registration';
import { WsEndpoint } from '../../rpc/ws-endpoint';
import { BodyTooLargeError } from '../node-errors';
import { endpointListHtml } from './endpoint-list';

/** CometBFT's WebSocket timings: ping every 27 s, read deadline 30 s. */
const KEEP_ALIVE = { pingMs: 27_000, readTimeoutMs: 30_000 };
const CACHE_CONTROL_IMMUTABLE = 'public, max-age=86400';
const JSON_TYPE = 'application/json';

function remoteOf(req: IncomingMessage): string {
  return `${req.socket.remoteAddress ?? 'unix'}:${req.socket.remotePort ?? 0}`;
}

/**
 * The node RPC's transports on each `[rpc] laddr`: JSON-RPC on `POST /` (any HTTP method with a body,
 * as CometBFT's mux), URI calls on `/<method>`, the endpoint list on `/` without a body, JSON-RPC over
 * WebSocket on `/websocket`, and Go's plain 404 everywhere else. A thin adapter over the engine.
 */
@Injectable()
export class NodeHttpTransport implements OnModuleInit {
  private readonly requestId = requestIdGenerator();
  private readonly cors: Cors | undefined;
  private readonly websockets: WsEndpoint;

  constructor(
    @Inject(RPC_ENGINE.node) private readonly engine: RpcEngine,
    private readonly config: GatewayConfigService,
    private readonly listeners: Listeners,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    const rpc = config.rpc;
    this.cors =
      rpc.cors_allowed_origins.length > 0 ? corsOf({ origins: rpc.cors_allowed_origins, methods: rpc.cors_allowed_methods, headers: rpc.cors_allowed_headers }) : undefined;
    this.websockets = new WsEndpoint(engine, {
      maxPayload: rpc.max_body_bytes,
      sendQueue: rpc.experimental_websocket_write_buffer_size,
      keepAlive: KEEP_ALIVE,
      onOversized: () => this.refuse('max_body_bytes'),
    });
  }

  onModuleInit(): void {
    const rpc = this.config.rpc;
    for (const address of rpc.laddr.split(',').map((s) => s.trim())) {
      this.listeners.add({
        rpc: 'node',
        address,
        scheme: 'http',
        maxHeaderBytes: rpc.max_header_bytes,
        maxConnections: rpc.max_open_connections,
        onRefused: () => this.refuse('max_open_connections'),
        handle: (req, res) => this.onRequest(req, res),
        upgrade: (req, socket, head) => this.onUpgrade(req, socket, head),
        websockets: this.websockets,
      });
    }
  }

  private refuse(limit: string): void {
    this.metrics?.refuse('node', 'limit', limit);
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if ((req.url ?? '').split('?')[0] !== '/websocket') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n404 page not found\n');
      return;
    }
    this.websockets.accept(req, socket, head);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const preflight = this.cors?.preflight(req.method, req.headers);
    if (preflight) return send(res, 204, preflight);
    const cors = this.cors?.headers(req.method, req.headers) ?? [];
    readBody(req, this.config.rpc.max_body_bytes, (body) => {
      if (body === undefined) {
        this.refuse('max_body_bytes');
        res.shouldKeepAlive = false;
        return send(res, 400, [...cors, 'Content-Type', JSON_TYPE, 'Connection', 'close'], errorAnswer(undefined, new BodyTooLargeError('max_body_bytes')));
      }
      this.route(req, res, body, cors).catch((err: Error) => httpError(res, 500, err.message, cors));
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse, body: string, cors: HeaderList): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path === '/') {
      if (body.length === 0) return send(res, 200, [...cors, ...serverTime(), 'Content-Type', 'text/html'], endpointListHtml(req.headers.host ?? '', this.servedMethods()));
      return this.jsonRpc(req, res, body, cors);
    }
    if (path === '/websocket') return send(res, 400, [...cors, 'Content-Type', 'text/plain; charset=utf-8'], 'Bad Request\n');
    const method = path.slice(1);
    if (method.includes('/') || !this.engine.has(method)) return httpError(res, 404, '404 page not found', cors);
    return this.uri(req, res, method, q < 0 ? '' : url.slice(q + 1), body, cors);
  }

  /** What `GET /` lists: the routes served (unsafe ones only when enabled), as CometBFT registers them. */
  private servedMethods() {
    return this.engine.registry.list().filter((method) => this.engine.isServed(method));
  }

  private async uri(req: IncomingMessage, res: ServerResponse, method: string, query: string, body: string, cors: HeaderList): Promise<void> {
    const params: Record<string, string> = {};
    const read = (text: string) => {
      for (const [k, v] of new URLSearchParams(text)) if (!(k in params)) params[k] = v;
    };
    read(query);
    if (body && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) read(body);
    this.engine.countRequest('uri', Buffer.byteLength(body) + (req.url ?? '').length);
    const ctx: CallContext = { transport: 'uri', remote: remoteOf(req), requestId: -1, correlationId: this.requestId(req) };
    const request = { method, params: { uri: params }, id: -1 };
    const outcome = await this.engine.call(request, ctx);
    if (!outcome.ok && outcome.error instanceof MethodNotFoundError && outcome.error.reason !== 'websocket-only') return httpError(res, 404, '404 page not found', cors);
    const answer = this.engine.answer('-1', outcome, request, ctx);
    const status = outcome.ok ? 200 : outcome.error instanceof MethodNotFoundError ? 404 : 500;
    const headers = [...cors, ...serverTime(), 'Content-Type', JSON_TYPE];
    if (answer.immutable) headers.push('Cache-Control', CACHE_CONTROL_IMMUTABLE);
    send(res, status, headers, this.engine.countAnswer('uri', answer.text));
  }

  private async jsonRpc(req: IncomingMessage, res: ServerResponse, body: string, cors: HeaderList): Promise<void> {
    const reply = await this.engine.handle(body, { transport: 'jsonrpc', remote: remoteOf(req), bytes: Buffer.byteLength(body), correlationId: this.requestId(req) });
    if (reply.body === undefined) return send(res, 200, [...cors, ...serverTime()], '');
    // CometBFT refuses an oversized batch in a middleware that runs before its headers are set.
    const headers = [...cors, ...(reply.refused ? [] : serverTime()), 'Content-Type', JSON_TYPE];
    if (reply.immutable) headers.push('Cache-Control', CACHE_CONTROL_IMMUTABLE);
    send(res, reply.failed ? 500 : 200, headers, reply.body);
  }
}

function serverTime(): string[] {
  return ['X-Server-Time', Math.floor(Date.now() / 1000).toString()];
}

function send(res: ServerResponse, status: number, headers: HeaderList, body?: string): void {
  const bytes = body === undefined ? undefined : Buffer.from(body);
  res.writeHead(status, bytes === undefined ? [...headers] : [...headers, 'Content-Length', String(bytes.length)]);
  res.end(bytes);
}
