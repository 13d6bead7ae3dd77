import { Module } from '@nestjs/common';
import { GatewayConfigService } from '../config/gateway-config.service';
import { RpcEngine, type Executor } from '../rpc/engine';
import { NODE_EXECUTOR } from '../backends/forwarders';
import { MethodNotFoundError } from '../rpc/errors';
import type { MethodRegistry } from '../rpc/method-registry';
import { METHOD_REGISTRY, RPC_ENGINE } from '../rpc/registration';
import { NodeDialect } from './node-dialect';

/** The node RPC's engine: its registry, CometBFT's dialect, and the guard policy of `[rpc]`. */
@Module({
  providers: [
    {
      provide: RPC_ENGINE.node,
      inject: [METHOD_REGISTRY.node, GatewayConfigService, { token: NODE_EXECUTOR, optional: true }],
      useFactory: (registry: MethodRegistry, config: GatewayConfigService, executor?: Executor) => {
        const engine = new RpcEngine(
          new NodeDialect(),
          registry,
          {
            unsafeEnabled: () => config.rpc.unsafe,
            groupEnabled: () => true,
            websocketOnlyRefusal: () => new MethodNotFoundError('websocket-only'),
          },
          () => ({ requests: { max: config.rpc.max_request_batch_size, key: 'max_request_batch_size' }, responseBytes: { max: 0, key: '' } }),
        );
        if (executor) engine.useExecutor(executor);
        return engine;
      },
    },
  ],
  exports: [RPC_ENGINE.node],
})
export class NodeRpcCoreModule {}
