import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AccessService } from '../../../access/access.service';
import { Door, retryAfterSeconds, type Pass } from '../../../access/door';
import { GatewayConfigService } from '../../../config/gateway-config.service';
import type { Caller } from '../../../rpc/call-context';
import { answerBytes, type AnswerPieces } from '../../../rpc/answer-pieces';
import type { RpcEngine } from '../../../rpc/engine';
import { errorAnswer } from '../../../rpc/envelope';
import { AnswerCompressor } from '../../../rpc/http/answer-compression';
import { readDecodedBody } from '../../../rpc/http/body-decoding';
import { readBody } from '../../../rpc/http/body-reader';
import { corsOf, RS_CORS_DEFAULT, type HeaderList } from '../../../rpc/http/cors';
import { emptyReply, httpError } from '../../../rpc/http/plain-replies';
import { Listeners } from '../../../rpc/listeners';
import { RPC_ENGINE } from '../../../rpc/registration';
import { evmListenerBase } from '../evm-listener';
import { refuseRequest } from './request-checks';

/**
 * The EVM RPC over HTTP on `[json-rpc] address`: `POST /` is JSON-RPC; any other method on `/` is
 * 405 with no body and any other path 404, as Evmos' router answers; CORS is rs/cors' default.
 */
@Injectable()
export class EvmHttpTransport implements OnModuleInit {
  private readonly cors = corsOf(RS_CORS_DEFAULT);
  private readonly door: Door<404 | 405>;
  private readonly compressor: AnswerCompressor;
  private readonly maxBody: number;

  constructor(
    @Inject(RPC_ENGINE.evm) private readonly engine: RpcEngine,
    private readonly config: GatewayConfigService,
    private readonly listeners: Listeners,
    @Optional() access?: AccessService,
  ) {
    // Evmos' router answers a path or a method it does not serve before any key is looked at.
    this.door = new Door(access, 'evm', engine.dialect, { route: (url, req) => routeOf(url, req.method) });
    this.compressor = new AnswerCompressor(config.gateway.compression);
    this.maxBody = config.jsonRpc['http-body-limit'];
  }

  onModuleInit(): void {
    const base = evmListenerBase(this.config, 'address');
    if (base === undefined) return;
    const rpc = this.config.jsonRpc;
    this.listeners.add({
      ...base,
      // Go's ReadTimeout covers the whole request, headers included.
      timeouts: { keepAlive: rpc['http-idle-timeout'], request: rpc['http-timeout'], headers: rpc['http-timeout'] },
      handle: (req, res) => this.onRequest(req, res),
    });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const preflight = this.cors.preflight(req.method, req.headers);
    if (preflight) return emptyReply(res, 204, preflight);
    const cors = this.cors.headers(req.method, req.headers);
    const pass = this.door.pass(req);
    if (pass instanceof Promise) pass.then((p) => this.admitted(req, res, p, cors), (err: Error) => httpError(res, 500, err.message, cors));
    else this.admitted(req, res, pass, cors);
  }

  private admitted(req: IncomingMessage, res: ServerResponse, entry: Pass<404 | 405>, cors: HeaderList): void {
    if ('turned' in entry) return entry.turned === 404 ? httpError(res, 404, '404 page not found', cors) : emptyReply(res, 405, cors);
    if ('refused' in entry) {
      res.shouldKeepAlive = false;
      const status = entry.refused.status;
      const body = Buffer.from(errorAnswer('null', entry.refused.error) + '\n');
      const auth = status === 401 ? ['WWW-Authenticate', 'Bearer'] : [];
      res.writeHead(status, ['Content-Type', 'application/json', 'Content-Length', String(body.length), ...auth, ...cors]);
      res.end(body);
      return;
    }
    const refusal = refuseRequest(req.headers, this.maxBody);
    if (refusal) return httpError(res, refusal.status, refusal.text, cors);
    const caller = entry.caller;
    // A caller over a rule on every method is refused before its body is read (it is discarded) or parsed.
    const spent = this.door.spent(caller);
    if (spent) return readBody(req, 0, () => this.reply(req, res, errorAnswer('null', spent), cors, spent.retryAfterMs));
    const body = (text: string | undefined, bytes: number): void => {
      if (text === undefined) {
        res.shouldKeepAlive = false;
        return httpError(res, 413, `content length too large (>${this.maxBody})`, cors);
      }
      this.serve(req, res, caller, text, bytes, cors);
    };
    readDecodedBody(req, this.maxBody, body, (why) => {
      res.shouldKeepAlive = false;
      httpError(res, why.status, why.reason, cors);
    });
  }

  private serve(req: IncomingMessage, res: ServerResponse, caller: Caller, text: string, bytes: number, cors: HeaderList): void {
    this.answer(req, res, caller, text, bytes, cors).catch((err: Error) => httpError(res, 400, err.message, cors));
  }

  private async answer(req: IncomingMessage, res: ServerResponse, caller: Caller, text: string, bytes: number, cors: HeaderList): Promise<void> {
    const remote = remoteOf(req);
    const timeoutMs = this.config.jsonRpc['http-timeout'];
    const answered = await this.engine.handle(text, {
      transport: 'jsonrpc',
      remote,
      caller,
      bytes,
      traceHeaders: req.headers,
      deadline: timeoutMs > 0 ? Date.now() + timeoutMs : undefined,
      pieces: true,
    });
    // A body that does not parse costs its rate budget too: over it, the limit's error instead.
    const limited = answered.failed ? await this.door.chargeUnparsed(caller, 'jsonrpc', remote) : undefined;
    if (limited) return this.reply(req, res, errorAnswer('null', limited), cors, limited.retryAfterMs);
    this.reply(req, res, answered.body, cors, answered.retryAfterMs, answered.bytes);
  }

  /**
   * An answer (none: an empty body) of `bytes` bytes, with 429 and Retry-After when every call was refused
   * at a rate limit.
   */
  private reply(req: IncomingMessage, res: ServerResponse, answer: string | AnswerPieces | undefined, cors: HeaderList, retryAfterMs: number | undefined, bytes = answer === undefined ? 0 : answerBytes(answer)): void {
    // go-ethereum ends an answer with a newline.
    const body = answer === undefined ? '' : typeof answer === 'string' ? answer + '\n' : [...answer, '\n'];
    // go-ethereum's media type, with no charset parameter.
    const retry = retryAfterMs === undefined ? [] : ['Retry-After', retryAfterSeconds(retryAfterMs)];
    this.compressor.send(req, res, retry.length > 0 ? 429 : 200, ['Content-Type', 'application/json', ...retry, ...cors], body, answer === undefined ? 0 : bytes + 1);
  }
}

function remoteOf(req: IncomingMessage): string {
  return `${req.socket.remoteAddress ?? 'unix'}:${req.socket.remotePort ?? 0}`;
}

/** Evmos' routes: only `POST /` is served; another path is 404, another method on `/` 405. */
function routeOf(url: string, method: string | undefined): 404 | 405 | undefined {
  const q = url.indexOf('?');
  if ((q < 0 ? url : url.slice(0, q)) !== '/') return 404;
  return method === 'POST' ? undefined : 405;
}
