import { Inject, Optional } from '@nestjs/common';
import { WebSocketGateway } from '@nestjs/websockets';
import { AccessService } from '../../access/access.service';
import { Door } from '../../access/door';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { MetricsService } from '../../metrics/metrics.service';
import type { RpcEngine } from '../../rpc/engine';
import { LimitError } from '../../rpc/errors';
import { RPC_ENGINE } from '../../rpc/registration';
import { UnfinishedBytes } from '../../rpc/unfinished-bytes';
import { wsDeflateOf } from '../../rpc/ws-deflate';
import { JsonRpcWsGateway } from '../../rpc/ws-gateway';

/** CometBFT's WebSocket timings: ping every 27 s, read deadline 30 s. */
const KEEP_ALIVE = { pingMs: 27_000, readTimeoutMs: 30_000 };
const NOT_FOUND = 'HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n404 page not found\n';

/**
 * The node RPC's JSON-RPC over WebSocket, on `/websocket` of every `[rpc] laddr` (the HTTP transport's
 * listeners hand it their upgrades); any other path is Go's plain 404.
 */
@WebSocketGateway({ path: '/websocket' })
export class NodeWsGateway extends JsonRpcWsGateway {
  constructor(
    @Inject(RPC_ENGINE.node) engine: RpcEngine,
    config: GatewayConfigService,
    unfinished: UnfinishedBytes,
    @Optional() metrics?: MetricsService,
    @Optional() access?: AccessService,
  ) {
    const rpc = config.rpc;
    const door = new Door(access, 'node', engine.dialect, {
      route: (url) => (url.split('?')[0] === '/websocket' ? undefined : NOT_FOUND),
      place: { kind: 'ws', capReached: (key, max) => new LimitError(key, 'Invalid Request', -32600, `${key} ${max} reached`) },
    });
    super(engine, door, {
      maxPayload: rpc.max_body_bytes,
      sendQueue: rpc.experimental_websocket_write_buffer_size,
      keepAlive: KEEP_ALIVE,
      onOversized: () => metrics?.refuse('node', 'limit', 'max_body_bytes'),
      unfinished,
      perMessageDeflate: wsDeflateOf(config.gateway.compression),
    });
  }
}
