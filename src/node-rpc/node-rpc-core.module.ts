import { Module } from '@nestjs/common';
import { MethodNotFoundError } from '../rpc/errors';
import { engineProvider, RPC_ENGINE } from '../rpc/registration';
import { nodeCategoryServed } from './categories';
import { NodeDialect } from './node-dialect';

/** The node RPC's engine: CometBFT's dialect, and the guard policy and batch limit of `[rpc]`. */
@Module({
  providers: [
    engineProvider('node', (config) => ({
      dialect: new NodeDialect(),
      policy: {
        groupEnabled: (group) => nodeCategoryServed(group, config.gateway.plugins.node_api),
        websocketOnlyRefusal: () => new MethodNotFoundError('websocket-only'),
      },
      limits: () => ({ requests: { max: config.rpc.max_request_batch_size, key: 'max_request_batch_size' }, responseBytes: { max: 0, key: '' } }),
    })),
  ],
  exports: [RPC_ENGINE.node],
})
export class NodeRpcCoreModule {}
