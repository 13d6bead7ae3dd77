import { Module } from '@nestjs/common';
import { MethodRegistry } from '../rpc/method-registry';
import { UnsafeGuard } from './guards/unsafe.guard';
import { WebsocketOnlyGuard } from './guards/websocket-only.guard';
import { NodeDispatcher } from './node-dispatcher';
import { NodeErrorDialect } from './node-error-dialect';
import { NodeParamDecoder } from './params/node-param-decoder';

export const NODE_REGISTRY = Symbol('NODE_REGISTRY');

/** The node RPC's registry and request path; category modules import it to register their methods. */
@Module({
  providers: [
    { provide: NODE_REGISTRY, useFactory: () => new MethodRegistry() },
    UnsafeGuard,
    WebsocketOnlyGuard,
    {
      provide: NodeDispatcher,
      inject: [NODE_REGISTRY, UnsafeGuard, WebsocketOnlyGuard],
      useFactory: (registry: MethodRegistry, unsafe: UnsafeGuard, wsOnly: WebsocketOnlyGuard) =>
        new NodeDispatcher(registry, new NodeParamDecoder(), [unsafe, wsOnly], new NodeErrorDialect()),
    },
  ],
  exports: [NODE_REGISTRY, NodeDispatcher],
})
export class NodeRpcCoreModule {}
