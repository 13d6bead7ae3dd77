import { Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { MetricsService, surfaceMeters, type SurfaceMeters } from '../../metrics/metrics.service';
import type { CallContext } from '../../rpc/call-context';
import { batchRuns } from '../../rpc/batch-runs';
import { isImmutable, type DispatchOutcome } from '../../rpc/dispatcher';
import { InvalidRequestError, MethodNotFoundError, RpcError } from '../../rpc/errors';
import { NodeDispatcher } from '../node-dispatcher';
import { endpointListHtml } from './endpoint-list';
import { CACHE_CONTROL_IMMUTABLE, notFoundText, sendJson, serverTime } from './http-replies';
import { parseJsonRpcBody, serializeResponse, type NodeRequest } from './jsonrpc-envelope';

const ALL_METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];

/**
 * The node RPC over HTTP: JSON-RPC on `/`, URI calls on `/<method>`, the endpoint list on `GET /`,
 * and Go's plain 404 everywhere else. One catch-all route, so that the quirks of CometBFT's mux
 * (any HTTP method runs a route) hold.
 */
@Injectable()
export class NodeHttpTransport implements OnModuleInit {
  private readonly meters: SurfaceMeters;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly dispatcher: NodeDispatcher,
    private readonly config: GatewayConfigService,
    @Optional() metrics?: MetricsService,
  ) {
    this.meters = surfaceMeters(metrics, 'node');
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const rpc = this.config.rpc;
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit: rpc.max_body_bytes }, (_req, body, done) => done(null, body));
    const corsOn = rpc.cors_allowed_origins.length > 0;
    fastify.route({
      // With CORS on, preflights belong to the CORS plugin.
      method: corsOn ? ALL_METHODS.filter((m) => m !== 'OPTIONS') : ALL_METHODS,
      url: '/*',
      handler: (req, reply) => this.handle(req, reply),
      errorHandler: (err, _req, reply) => this.onTransportError(err, reply),
    });
  }

  private async handle(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const url = req.url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const body = typeof req.body === 'string' ? req.body : '';
    if (path === '/') {
      if (body.length === 0) {
        serverTime(reply);
        return reply.code(200).header('Content-Type', 'text/html').send(endpointListHtml(req.headers.host ?? '', this.servedMethods()));
      }
      return this.jsonRpc(req, reply, body);
    }
    if (path === '/websocket') return reply.code(400).header('Content-Type', 'text/plain; charset=utf-8').send('Bad Request\n');
    const method = path.slice(1);
    if (method.includes('/') || !this.dispatcher.registry.has(method)) return notFoundText(reply);
    return this.uri(req, reply, method, q < 0 ? '' : url.slice(q + 1), body);
  }

  /** What `GET /` lists: unsafe routes only when they are enabled, as CometBFT registers them. */
  private servedMethods() {
    return this.dispatcher.registry.list().filter((spec) => !spec.unsafe || this.config.rpc.unsafe);
  }

  private async uri(req: FastifyRequest, reply: FastifyReply, method: string, query: string, body: string): Promise<FastifyReply> {
    const params: Record<string, string> = {};
    const read = (text: string) => {
      for (const [k, v] of new URLSearchParams(text)) if (!(k in params)) params[k] = v;
    };
    read(query);
    if (body && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) read(body);
    const meter = this.meters.uri;
    this.meters.received(meter, body, req.url.length);
    const ctx: CallContext = { transport: 'uri', remote: remoteOf(req), requestId: -1, correlationId: req.id };
    const outcome = await this.dispatcher.dispatch({ method, params: { uri: params }, id: -1 }, ctx);
    if (!outcome.ok && outcome.error instanceof MethodNotFoundError && outcome.error.reason !== 'websocket-only') {
      return notFoundText(reply);
    }
    serverTime(reply);
    if (outcome.ok) {
      if (isImmutable(outcome)) reply.header('Cache-Control', CACHE_CONTROL_IMMUTABLE);
      return sendJson(reply, 200, this.meters.counted(meter, serializeResponse(-1, { result: outcome.result })));
    }
    const status = outcome.error instanceof MethodNotFoundError ? 404 : 500;
    return sendJson(reply, status, this.meters.counted(meter, serializeResponse(-1, { error: outcome.error })));
  }

  private async jsonRpc(req: FastifyRequest, reply: FastifyReply, body: string): Promise<FastifyReply> {
    const meter = this.meters.jsonrpc;
    this.meters.received(meter, body);
    const parsed = parseJsonRpcBody(body, true);
    if (!parsed.ok) {
      this.meters.rejected('jsonrpc', parsed.error.code);
      return sendJson(serverTime(reply), 500, this.meters.counted(meter, serializeResponse(undefined, { error: parsed.error })));
    }
    const limit = this.config.rpc.max_request_batch_size;
    if (parsed.batch && limit > 0 && parsed.requests.length > limit) {
      this.meters.refuse('max_request_batch_size');
      const error = new InvalidRequestError('Invalid Request', `batch request exceeds maximum (${limit}) allowed number of requests`);
      return sendJson(reply, 200, this.meters.counted(meter, serializeResponse(undefined, { error })));
    }
    if (parsed.batch) this.meters.batchSize.observe(parsed.requests.length);
    serverTime(reply);
    const remote = remoteOf(req);
    const replies: string[] = [];
    const outcomes: DispatchOutcome[] = [];
    const { requests } = parsed;
    const dispatch = (request: NodeRequest) =>
      this.dispatcher.dispatch(request, { transport: 'jsonrpc', remote, requestId: request.id, correlationId: req.id });
    // Consecutive reads of a batch run together (spread over the pool in upstream mode); writes in order.
    for (const [start, end] of batchRuns(requests, (r) => this.dispatcher.registry.isRead(r.method))) {
      const run = await Promise.all(requests.slice(start, end).map(dispatch));
      run.forEach((outcome, k) => {
        const request = requests[start + k];
        if (request.notification) return;
        outcomes.push(outcome);
        replies.push(serializeResponse(request.id, outcome.ok ? { result: outcome.result } : { error: outcome.error }));
      });
    }
    if (replies.length === 0) return reply.code(200).send('');
    if (outcomes.every(isImmutable)) reply.header('Cache-Control', CACHE_CONTROL_IMMUTABLE);
    // CometBFT answers a batch with a single reply as a bare object.
    return sendJson(reply, 200, this.meters.counted(meter, replies.length === 1 ? replies[0] : `[${replies.join(',')}]`));
  }

  private onTransportError(err: Error & { code?: string; statusCode?: number }, reply: FastifyReply): FastifyReply {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      this.meters.refuse('max_body_bytes');
      const error = new InvalidRequestError('Invalid Request', 'error reading request body: http: request body too large');
      return sendJson(reply.header('Connection', 'close'), 400, serializeResponse(undefined, { error }));
    }
    const error = err instanceof RpcError ? err : new InvalidRequestError('Invalid Request', `error reading request body: ${err.message}`);
    return sendJson(reply, err.statusCode && err.statusCode < 500 ? 400 : 500, serializeResponse(undefined, { error }));
  }
}

function remoteOf(req: FastifyRequest): string {
  const socket = req.raw.socket;
  return `${socket.remoteAddress ?? 'unix'}:${socket.remotePort ?? 0}`;
}
