import { WsAdapter } from '@nestjs/platform-ws';
import type { MessageMappingProperties } from '@nestjs/websockets';
import type { Observable } from 'rxjs';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * Nest's `ws` adapter for the JSON-RPC gateways. Two things differ from WsAdapter's defaults:
 *
 * - where a gateway listens is config (`laddr`, `ws-address`, unix sockets too), which a decorator cannot
 *   name, and an upgrade is admitted (path, origin, API key, per-IP cap) before it becomes a WebSocket:
 *   so a gateway's server has no port of its own (`noServer`); the listener that serves it (Listeners)
 *   hands it the upgrades its door admits;
 * - a frame is a JSON-RPC body for the engine, not a `{ event, data }` message: a gateway without
 *   `@SubscribeMessage` handlers binds its sockets itself, and no frame is parsed here.
 */
export class RpcWsAdapter extends WsAdapter {
  override create(_port: number, options: { path?: string; namespace?: string } = {}): WebSocketServer {
    if (options.namespace !== undefined) throw new Error('RpcWsAdapter: gateways have no namespaces');
    return new WebSocketServer({ noServer: true, perMessageDeflate: false });
  }

  override bindMessageHandlers(client: WebSocket, handlers: MessageMappingProperties[], transform: (data: unknown) => Observable<unknown>): void {
    if (handlers.length > 0) super.bindMessageHandlers(client, handlers, transform);
  }
}
