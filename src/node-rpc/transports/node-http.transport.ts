import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AccessService, keyRefusalStatus } from '../../access/access.service';
import { enter, retryAfterSeconds, type Entry } from '../../access/door';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { requestIdGenerator } from '../../logging/gateway-logger';
import { MetricsService } from '../../metrics/metrics.service';
import type { CallContext, Caller } from '../../rpc/call-context';
import type { RpcEngine } from '../../rpc/engine';
import { errorAnswer } from '../../rpc/envelope';
import { LimitError, MethodNotFoundError, RateLimitedError } from '../../rpc/errors';
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
    @Optional() private readonly access?: AccessService,
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
    const limits = this.config.gateway.limits;
    // Go's ReadHeaderTimeout cannot exceed its ReadTimeout: the whole request includes the headers.
    const headers = limits.rpc_read_timeout > 0 && limits.rpc_header_timeout > 0 ? Math.min(limits.rpc_header_timeout, limits.rpc_read_timeout) : limits.rpc_header_timeout || limits.rpc_read_timeout;
    for (const address of rpc.laddr.split(',').map((s) => s.trim())) {
      this.listeners.add({
        rpc: 'node',
        address,
        scheme: 'http',
        maxHeaderBytes: rpc.max_header_bytes,
        maxConnections: rpc.max_open_connections,
        onRefused: () => this.refuse('max_open_connections'),
        timeouts: { headers, request: limits.rpc_read_timeout, keepAlive: limits.rpc_idle_timeout },
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
    const entry = enter(this.access, req);
    if (entry instanceof Promise) entry.then((e) => this.upgrade(req, socket, head, e), () => socket.destroy());
    else this.upgrade(req, socket, head, entry);
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, entry: Entry): void {
    if (entry.url.split('?')[0] !== '/websocket') {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n404 page not found\n');
      return;
    }
    if ('refused' in entry) {
      this.access?.refused('node', entry.refused);
      return refuseUpgrade(socket, keyRefusalStatus(entry.refused), errorAnswer(undefined, this.engine.dialect.unauthorized(entry.refused)));
    }
    const release = this.access?.takeIpPlace('node', 'ws', entry.caller.ip);
    if (this.access && !release) {
      const { key, max } = this.access.capOf('ws');
      return refuseUpgrade(socket, 429, errorAnswer(undefined, new LimitError(key, 'Invalid Request', -32600, `${key} ${max} reached`)));
    }
    this.websockets.accept(req, socket, head, { caller: entry.caller, onClose: release });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const preflight = this.cors?.preflight(req.method, req.headers);
    if (preflight) return send(res, 204, preflight);
    const cors = this.cors?.headers(req.method, req.headers) ?? [];
    const entry = enter(this.access, req);
    if (entry instanceof Promise) entry.then((e) => this.admitted(req, res, e, cors), (err: Error) => httpError(res, 500, err.message, cors));
    else this.admitted(req, res, entry, cors);
  }

  private admitted(req: IncomingMessage, res: ServerResponse, entry: Entry, cors: HeaderList): void {
    if ('refused' in entry) {
      this.access?.refused('node', entry.refused);
      res.shouldKeepAlive = false;
      const status = keyRefusalStatus(entry.refused);
      const headers = [...cors, 'Content-Type', JSON_TYPE, 'Connection', 'close', ...(status === 401 ? ['WWW-Authenticate', 'Bearer'] : [])];
      return send(res, status, headers, errorAnswer(undefined, this.engine.dialect.unauthorized(entry.refused)));
    }
    readBody(req, this.config.rpc.max_body_bytes, (body) => {
      if (body === undefined) {
        this.refuse('max_body_bytes');
        res.shouldKeepAlive = false;
        return send(res, 400, [...cors, 'Content-Type', JSON_TYPE, 'Connection', 'close'], errorAnswer(undefined, new BodyTooLargeError('max_body_bytes')));
      }
      this.route(req, res, entry.url, entry.caller, body, cors).catch((err: Error) => httpError(res, 500, err.message, cors));
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse, url: string, caller: Caller, body: string, cors: HeaderList): Promise<void> {
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path === '/') {
      if (body.length === 0) return send(res, 200, [...cors, ...serverTime(), 'Content-Type', 'text/html'], endpointListHtml(req.headers.host ?? '', this.servedMethods()));
      return this.jsonRpc(req, res, caller, body, cors);
    }
    if (path === '/websocket') return send(res, 400, [...cors, 'Content-Type', 'text/plain; charset=utf-8'], 'Bad Request\n');
    const method = path.slice(1);
    if (method.includes('/') || !this.engine.has(method)) return httpError(res, 404, '404 page not found', cors);
    return this.uri(req, res, caller, method, q < 0 ? '' : url.slice(q + 1), body, cors);
  }

  /** What `GET /` lists: the routes served (unsafe ones only when enabled), as CometBFT registers them. */
  private servedMethods() {
    return this.engine.registry.list().filter((method) => this.engine.isServed(method));
  }

  private async uri(req: IncomingMessage, res: ServerResponse, caller: Caller, method: string, query: string, body: string, cors: HeaderList): Promise<void> {
    const params: Record<string, string> = {};
    const read = (text: string) => {
      for (const [k, v] of new URLSearchParams(text)) if (!(k in params)) params[k] = v;
    };
    read(query);
    if (body && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) read(body);
    this.engine.countRequest('uri', Buffer.byteLength(body) + (req.url ?? '').length);
    const ctx: CallContext = { transport: 'uri', remote: remoteOf(req), caller, requestId: -1, correlationId: this.requestId(req) };
    const request = { method, params: { uri: params }, id: -1 };
    const outcome = await this.engine.call(request, ctx);
    if (!outcome.ok && outcome.error instanceof MethodNotFoundError && outcome.error.reason !== 'websocket-only') return httpError(res, 404, '404 page not found', cors);
    const answer = this.engine.answer('-1', outcome, request, ctx);
    const limited = !outcome.ok && outcome.error instanceof RateLimitedError ? outcome.error : undefined;
    const status = outcome.ok ? 200 : limited ? 429 : outcome.error instanceof MethodNotFoundError ? 404 : 500;
    const headers = [...cors, ...serverTime(), 'Content-Type', JSON_TYPE];
    if (limited) headers.push('Retry-After', retryAfterSeconds(limited.retryAfterMs));
    if (answer.immutable) headers.push('Cache-Control', CACHE_CONTROL_IMMUTABLE);
    send(res, status, headers, this.engine.countAnswer('uri', answer.text));
  }

  private async jsonRpc(req: IncomingMessage, res: ServerResponse, caller: Caller, body: string, cors: HeaderList): Promise<void> {
    const reply = await this.engine.handle(body, { transport: 'jsonrpc', remote: remoteOf(req), caller, bytes: Buffer.byteLength(body), correlationId: this.requestId(req) });
    if (reply.body === undefined) return send(res, 200, [...cors, ...serverTime()], '');
    // CometBFT refuses an oversized batch in a middleware that runs before its headers are set.
    const headers = [...cors, ...(reply.refused ? [] : serverTime()), 'Content-Type', JSON_TYPE];
    if (reply.immutable) headers.push('Cache-Control', CACHE_CONTROL_IMMUTABLE);
    // Every call refused at a rate limit: 429, and when to come back.
    if (reply.retryAfterMs !== undefined) headers.push('Retry-After', retryAfterSeconds(reply.retryAfterMs));
    send(res, reply.failed ? 500 : reply.retryAfterMs !== undefined ? 429 : 200, headers, reply.body);
  }
}

/** Refuses a WebSocket handshake with `status` and a JSON-RPC error body, then closes. */
function refuseUpgrade(socket: Duplex, status: 401 | 429 | 503, body: string): void {
  const reason = { 401: 'Unauthorized', 429: 'Too Many Requests', 503: 'Service Unavailable' }[status];
  const extra = status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${JSON_TYPE}\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function serverTime(): string[] {
  return ['X-Server-Time', Math.floor(Date.now() / 1000).toString()];
}

/** A string body goes out in one write with the head (node:http joins them; a Buffer would take two). */
function send(res: ServerResponse, status: number, headers: HeaderList, body?: string): void {
  res.writeHead(status, body === undefined ? [...headers] : [...headers, 'Content-Length', String(Buffer.byteLength(body))]);
  res.end(body);
}
