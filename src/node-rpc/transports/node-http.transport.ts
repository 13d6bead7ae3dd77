import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AccessService } from '../../access/access.service';
import { Door, retryAfterSeconds, type Pass } from '../../access/door';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { readTlsFiles } from '../../config/tls-files';
import { requestIdGenerator } from '../../logging/gateway-logger';
import { MetricsService } from '../../metrics/metrics.service';
import type { CallContext, Caller } from '../../rpc/call-context';
import type { RpcEngine } from '../../rpc/engine';
import { errorAnswer } from '../../rpc/envelope';
import { MethodNotFoundError, RateLimitedError } from '../../rpc/errors';
import { AnswerCompressor } from '../../rpc/http/answer-compression';
import { readDecodedBody } from '../../rpc/http/body-decoding';
import { readBody } from '../../rpc/http/body-reader';
import { corsOf, type Cors, type HeaderList } from '../../rpc/http/cors';
import { httpError } from '../../rpc/http/plain-replies';
import { Listeners } from '../../rpc/listeners';
import { RPC_ENGINE } from '../../rpc/registration';
import { BodyReadError, BodyTooLargeError } from '../node-errors';
import { endpointListHtml } from './endpoint-list';
import { NodeWsGateway } from './node-ws.gateway';

const CACHE_CONTROL_IMMUTABLE = 'public, max-age=86400';
const JSON_TYPE = 'application/json';

function remoteOf(req: IncomingMessage): string {
  return `${req.socket.remoteAddress ?? 'unix'}:${req.socket.remotePort ?? 0}`;
}

/**
 * The node RPC's transports on each `[rpc] laddr`: JSON-RPC on `POST /` (any HTTP method with a body,
 * as CometBFT's mux), URI calls on `/<method>`, the endpoint list on `/` without a body, and Go's plain
 * 404 everywhere else; its upgrades go to the WebSocket gateway (`/websocket`). A thin adapter over the
 * engine.
 */
@Injectable()
export class NodeHttpTransport implements OnModuleInit {
  private readonly requestId = requestIdGenerator();
  private readonly cors: Cors | undefined;
  private readonly door: Door;
  private readonly compressor: AnswerCompressor;

  constructor(
    @Inject(RPC_ENGINE.node) private readonly engine: RpcEngine,
    private readonly config: GatewayConfigService,
    private readonly listeners: Listeners,
    private readonly websockets: NodeWsGateway,
    @Optional() private readonly metrics?: MetricsService,
    @Optional() access?: AccessService,
  ) {
    const rpc = config.rpc;
    this.cors =
      rpc.cors_allowed_origins.length > 0 ? corsOf({ origins: rpc.cors_allowed_origins, methods: rpc.cors_allowed_methods, headers: rpc.cors_allowed_headers }) : undefined;
    this.door = new Door(access, 'node', engine.dialect);
    this.compressor = new AnswerCompressor(config.gateway.compression);
  }

  onModuleInit(): void {
    const rpc = this.config.rpc;
    const limits = this.config.gateway.limits;
    // Go's ReadHeaderTimeout cannot exceed its ReadTimeout: the whole request includes the headers.
    const headers = limits.rpc_read_timeout > 0 && limits.rpc_header_timeout > 0 ? Math.min(limits.rpc_header_timeout, limits.rpc_read_timeout) : limits.rpc_header_timeout || limits.rpc_read_timeout;
    const tls = readTlsFiles(this.config.all, 'node');
    for (const address of rpc.laddr.split(',').map((s) => s.trim())) {
      this.listeners.add({
        rpc: 'node',
        address,
        scheme: 'http',
        setting: 'config/config.toml: [rpc] laddr',
        tls,
        maxHeaderBytes: rpc.max_header_bytes,
        maxConnections: rpc.max_open_connections,
        onRefused: () => this.refuse('max_open_connections'),
        timeouts: { headers, request: limits.rpc_read_timeout, keepAlive: limits.rpc_idle_timeout },
        handle: (req, res) => this.onRequest(req, res),
        upgrade: (req, socket, head) => this.websockets.upgrade(req, socket, head),
        websockets: this.websockets,
      });
    }
  }

  private refuse(limit: string): void {
    this.metrics?.refuse('node', 'limit', limit);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const preflight = this.cors?.preflight(req.method, req.headers);
    if (preflight) return send(res, 204, preflight);
    const cors = this.cors?.headers(req.method, req.headers) ?? [];
    const pass = this.door.pass(req);
    if (pass instanceof Promise) pass.then((p) => this.admitted(req, res, p, cors), (err: Error) => httpError(res, 500, err.message, cors));
    else this.admitted(req, res, pass, cors);
  }

  private admitted(req: IncomingMessage, res: ServerResponse, entry: Pass, cors: HeaderList): void {
    if ('refused' in entry) {
      res.shouldKeepAlive = false;
      const status = entry.refused.status;
      const headers = [...cors, 'Content-Type', JSON_TYPE, 'Connection', 'close', ...(status === 401 ? ['WWW-Authenticate', 'Bearer'] : [])];
      return send(res, status, headers, errorAnswer(undefined, entry.refused.error));
    }
    // A caller over a rule on every method is refused before its body is read (it is discarded) or parsed.
    const spent = this.door.spent(entry.caller);
    if (spent) return readBody(req, 0, () => tooMany(res, spent, cors));
    const closing = [...cors, 'Content-Type', JSON_TYPE, 'Connection', 'close'];
    const body = (text: string | undefined, bytes: number): void => {
      if (text === undefined) {
        this.refuse('max_body_bytes');
        res.shouldKeepAlive = false;
        return send(res, 400, closing, errorAnswer(undefined, new BodyTooLargeError('max_body_bytes')));
      }
      this.route(req, res, entry.url, entry.caller, text, bytes, cors).catch((err: Error) => httpError(res, 500, err.message, cors));
    };
    readDecodedBody(req, this.config.rpc.max_body_bytes, body, (why) => {
      res.shouldKeepAlive = false;
      send(res, why.status, closing, errorAnswer(undefined, new BodyReadError(why.reason)));
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse, url: string, caller: Caller, body: string, bytes: number, cors: HeaderList): Promise<void> {
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path === '/') {
      if (body.length === 0) return this.compressor.send(req, res, 200, [...cors, ...serverTime(), 'Content-Type', 'text/html'], endpointListHtml(req.headers.host ?? '', this.servedMethods()));
      return this.jsonRpc(req, res, caller, body, bytes, cors);
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
    const ctx: CallContext = { transport: 'uri', remote: remoteOf(req), caller, requestId: -1, correlationId: this.requestId(req), traceHeaders: req.headers };
    const request = { method, params: { uri: params }, id: -1 };
    const outcome = await this.engine.callWithin(request, ctx);
    if (!outcome.ok && outcome.error instanceof MethodNotFoundError && outcome.error.reason !== 'websocket-only') return httpError(res, 404, '404 page not found', cors);
    const answer = this.engine.answer('-1', outcome, request, ctx, true);
    const limited = !outcome.ok && outcome.error instanceof RateLimitedError ? outcome.error : undefined;
    const status = outcome.ok ? 200 : limited ? 429 : outcome.error instanceof MethodNotFoundError ? 404 : 500;
    const headers = [...cors, ...serverTime(), 'Content-Type', JSON_TYPE];
    if (limited) headers.push('Retry-After', retryAfterSeconds(limited.retryAfterMs));
    if (answer.immutable) headers.push('Cache-Control', CACHE_CONTROL_IMMUTABLE);
    this.engine.countAnswer('uri', answer.bytes);
    this.compressor.send(req, res, status, headers, answer.text, answer.bytes);
  }

  private async jsonRpc(req: IncomingMessage, res: ServerResponse, caller: Caller, body: string, bytes: number, cors: HeaderList): Promise<void> {
    const remote = remoteOf(req);
    const reply = await this.engine.handle(body, { transport: 'jsonrpc', remote, caller, bytes, correlationId: this.requestId(req), traceHeaders: req.headers, pieces: true });
    // A body that does not parse costs its rate budget too: over it, 429 instead of the parse error.
    const limited = reply.failed ? await this.door.chargeUnparsed(caller, 'jsonrpc', remote) : undefined;
    if (limited) return tooMany(res, limited, cors);
    if (reply.body === undefined) return send(res, 200, [...cors, ...serverTime()], '');
    // CometBFT refuses an oversized batch in a middleware that runs before its headers are set.
    const headers = [...cors, ...(reply.refused ? [] : serverTime()), 'Content-Type', JSON_TYPE];
    if (reply.immutable) headers.push('Cache-Control', CACHE_CONTROL_IMMUTABLE);
    // Every call refused at a rate limit: 429, and when to come back.
    if (reply.retryAfterMs !== undefined) headers.push('Retry-After', retryAfterSeconds(reply.retryAfterMs));
    this.compressor.send(req, res, reply.failed ? 500 : reply.retryAfterMs !== undefined ? 429 : 200, headers, reply.body, reply.bytes);
  }
}

/** HTTP 429 with the rate limit's JSON-RPC error and when to come back. */
function tooMany(res: ServerResponse, limited: RateLimitedError, cors: HeaderList): void {
  send(res, 429, [...cors, ...serverTime(), 'Content-Type', JSON_TYPE, 'Retry-After', retryAfterSeconds(limited.retryAfterMs)], errorAnswer(undefined, limited));
}

function serverTime(): string[] {
  return ['X-Server-Time', Math.floor(Date.now() / 1000).toString()];
}

/** A string body goes out in one write with the head (node:http joins them; a Buffer would take two). */
function send(res: ServerResponse, status: number, headers: HeaderList, body?: string): void {
  res.writeHead(status, body === undefined ? [...headers] : [...headers, 'Content-Length', String(Buffer.byteLength(body))]);
  res.end(body);
}
