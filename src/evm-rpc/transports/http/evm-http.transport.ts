import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayConfigService } from '../../../config/gateway-config.service';
import type { RpcEngine } from '../../../rpc/engine';
import { readBody } from '../../../rpc/http/body-reader';
import { corsOf, RS_CORS_DEFAULT, type HeaderList } from '../../../rpc/http/cors';
import { emptyReply, httpError } from '../../../rpc/http/plain-replies';
import { Listeners } from '../../../rpc/listeners';
import { RPC_ENGINE } from '../../../rpc/registration';
import { MAX_BODY_BYTES, refuseRequest } from './request-checks';

/**
 * The EVM RPC over HTTP on `[json-rpc] address`: `POST /` is JSON-RPC; any other method on `/` is
 * 405 with no body and any other path 404, as Evmos' router answers; CORS is rs/cors' default.
 */
@Injectable()
export class EvmHttpTransport implements OnModuleInit {
  private readonly cors = corsOf(RS_CORS_DEFAULT);

  constructor(
    @Inject(RPC_ENGINE.evm) private readonly engine: RpcEngine,
    private readonly config: GatewayConfigService,
    private readonly listeners: Listeners,
  ) {}

  onModuleInit(): void {
    const rpc = this.config.jsonRpc;
    if (!rpc.enable) return;
    this.listeners.add({
      rpc: 'evm',
      address: rpc.address,
      scheme: 'http',
      maxConnections: rpc['max-open-connections'],
      // Go's ReadTimeout covers the whole request, headers included.
      timeouts: { keepAlive: rpc['http-idle-timeout'], request: rpc['http-timeout'], headers: rpc['http-timeout'] },
      handle: (req, res) => this.onRequest(req, res),
    });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const preflight = this.cors.preflight(req.method, req.headers);
    if (preflight) return emptyReply(res, 204, preflight);
    const cors = this.cors.headers(req.method, req.headers);
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if ((q < 0 ? url : url.slice(0, q)) !== '/') return httpError(res, 404, '404 page not found', cors);
    if (req.method !== 'POST') return emptyReply(res, 405, cors);
    const refusal = refuseRequest(req.headers);
    if (refusal) return httpError(res, refusal.status, refusal.text, cors);
    readBody(req, MAX_BODY_BYTES, (text) => {
      if (text === undefined) {
        res.shouldKeepAlive = false;
        return httpError(res, 413, `content length too large (>${MAX_BODY_BYTES})`, cors);
      }
      this.serve(req, res, text, cors);
    });
  }

  private serve(req: IncomingMessage, res: ServerResponse, text: string, cors: HeaderList): void {
    const socket = req.socket;
    const timeoutMs = this.config.jsonRpc['http-timeout'];
    this.engine
      .handle(text, {
        transport: 'jsonrpc',
        remote: `${socket.remoteAddress ?? 'unix'}:${socket.remotePort ?? 0}`,
        bytes: Buffer.byteLength(text),
        deadline: timeoutMs > 0 ? Date.now() + timeoutMs : undefined,
      })
      .then(
        (reply) => {
          const body = Buffer.from(reply.body === undefined ? '' : reply.body + '\n');
          // go-ethereum's media type, with no charset parameter.
          res.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', String(body.length), ...cors]);
          res.end(body);
        },
        (err: Error) => httpError(res, 400, err.message, cors),
      );
  }
}
