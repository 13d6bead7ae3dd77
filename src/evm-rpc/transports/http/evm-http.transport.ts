import { Injectable } from '@nestjs/common';
import fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GatewayConfigService } from '../../../config/gateway-config.service';
import { limitConnections } from '../../../rpc/http/connection-limit';
import { JsonRpcMessageHandler } from '../../envelope/message-handler';
import { parseListenAddress } from '../../../rpc/http/listen-address';
import { boundUrl } from '../listen';
import { defaultCors } from './cors';
import { httpError } from './plain-replies';
import { MAX_BODY_BYTES, refuseRequest } from './request-checks';

/**
 * The EVM RPC over HTTP, on its own Fastify instance: `POST /` is JSON-RPC; any other method on `/`
 * is 405 with no body and any other path 404, as Evmos' router answers; CORS is rs/cors' default.
 */
@Injectable()
export class EvmHttpTransport {
  private app: FastifyInstance | undefined;

  constructor(
    private readonly handler: JsonRpcMessageHandler,
    private readonly config: GatewayConfigService,
  ) {}

  async listen(): Promise<string> {
    const rpc = this.config.jsonRpc;
    const app = fastify({ bodyLimit: MAX_BODY_BYTES, keepAliveTimeout: rpc['http-idle-timeout'], forceCloseConnections: true, logger: false });
    // Go's ReadTimeout covers the whole request, headers included.
    app.server.requestTimeout = rpc['http-timeout'];
    app.server.headersTimeout = rpc['http-timeout'];
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    app.addHook('onRequest', defaultCors);
    app.route({
      method: 'POST',
      url: '/',
      onRequest: async (req, reply) => {
        const refusal = refuseRequest(req.headers);
        if (refusal) return httpError(reply, refusal.status, refusal.text);
      },
      handler: (req, reply) => this.serve(req, reply),
      errorHandler: (err: Error & { code?: string }, _req, reply) =>
        err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? httpError(reply, 413, `content length too large (>${MAX_BODY_BYTES})`) : httpError(reply, 400, err.message),
    });
    app.setNotFoundHandler((req, reply) => (req.url.split('?')[0] === '/' ? reply.code(405).send() : httpError(reply, 404, '404 page not found')));
    limitConnections([app.server], rpc['max-open-connections']);
    this.app = app;
    // Fastify's own listen, so that its close() knows to drop open connections.
    const target = parseListenAddress(rpc.address);
    await app.listen(target.kind === 'unix' ? { path: target.path } : { host: target.host, port: target.port });
    return boundUrl(app.server, target, 'http');
  }

  async close(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    await app?.close();
  }

  private async serve(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const timeout = this.config.jsonRpc['http-timeout'];
    const socket = req.raw.socket;
    const text = await this.handler.handle(typeof req.body === 'string' ? req.body : '', {
      transport: 'jsonrpc',
      remote: `${socket.remoteAddress ?? 'unix'}:${socket.remotePort ?? 0}`,
      deadline: timeout > 0 ? Date.now() + timeout : undefined,
    });
    // A Buffer, so that Fastify sends the media type as go-ethereum does (no charset parameter).
    return reply
      .code(200)
      .header('Content-Type', 'application/json')
      .send(Buffer.from(text === undefined ? '' : text + '\n'));
  }
}
