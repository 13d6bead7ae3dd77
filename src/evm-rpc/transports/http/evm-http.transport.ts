import { Injectable } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GatewayConfigService } from '../../../config/gateway-config.service';
import { limitConnections } from '../../../rpc/http/connection-limit';
import { JsonRpcMessageHandler } from '../../envelope/message-handler';
import { closeServer, listen } from '../listen';
import { readBody } from './body-reader';
import { corsHeaders, preflightHeaders, type HeaderList } from './cors';
import { emptyReply, httpError } from './plain-replies';
import { MAX_BODY_BYTES, refuseRequest } from './request-checks';

/**
 * The EVM RPC over HTTP, on a bare node:http server (no per-request framework work): `POST /` is
 * JSON-RPC; any other method on `/` is 405 with no body and any other path 404, as Evmos' router
 * answers; CORS is rs/cors' default.
 */
@Injectable()
export class EvmHttpTransport {
  private server: Server | undefined;
  private timeoutMs = 0;

  constructor(
    private readonly handler: JsonRpcMessageHandler,
    private readonly config: GatewayConfigService,
  ) {}

  async listen(): Promise<string> {
    const rpc = this.config.jsonRpc;
    this.timeoutMs = rpc['http-timeout'];
    const server = createServer((req, res) => this.onRequest(req, res));
    server.keepAliveTimeout = rpc['http-idle-timeout'];
    // Go's ReadTimeout covers the whole request, headers included.
    server.requestTimeout = rpc['http-timeout'];
    server.headersTimeout = rpc['http-timeout'];
    limitConnections([server], rpc['max-open-connections']);
    this.server = server;
    return listen(server, rpc.address, 'http');
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await closeServer(server);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const preflight = preflightHeaders(req.method, req.headers);
    if (preflight) return emptyReply(res, 204, preflight);
    const cors = corsHeaders(req.method, req.headers);
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
    this.handler
      .handle(text, {
        transport: 'jsonrpc',
        remote: `${socket.remoteAddress ?? 'unix'}:${socket.remotePort ?? 0}`,
        deadline: this.timeoutMs > 0 ? Date.now() + this.timeoutMs : undefined,
      })
      .then(
        (reply) => {
          const body = Buffer.from(reply === undefined ? '' : reply + '\n');
          // go-ethereum's media type, with no charset parameter.
          res.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', String(body.length), ...cors]);
          res.end(body);
        },
        (err: Error) => httpError(res, 400, err.message, cors),
      );
  }
}
