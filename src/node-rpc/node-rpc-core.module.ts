import { Module } from '@nestjs/common';
import type { GatewayConfigService } from '../config/gateway-config.service';
import { MethodNotFoundError } from '../rpc/errors';
import { engineProvider, RPC_ENGINE } from '../rpc/registration';
import { nodeCategoryServed } from './categories';
import { NodeDialect } from './node-dialect';

/**
 * How long a node RPC call may run: `[limits] rpc_write_timeout` (CometBFT's write timeout), raised as
 * CometBFT raises it so that broadcast_tx_commit can wait for its check and `timeout_broadcast_tx_commit`
 * and answer its own timeout; 0 = no deadline.
 */
function callTimeout(config: GatewayConfigService): number {
  const write = config.gateway.limits.rpc_write_timeout;
  return write === 0 ? 0 : Math.max(write, config.gateway.queue.check_timeout + config.rpc.timeout_broadcast_tx_commit + 1_000);
}

/** The node RPC's engine: CometBFT's dialect, and the guard policy and batch limit of `[rpc]`, its call deadline. */
@Module({
  providers: [
    engineProvider('node', (config) => ({
      dialect: new NodeDialect(),
      policy: {
        groupEnabled: (group) => nodeCategoryServed(group, config.gateway.plugins.node_api),
        websocketOnlyRefusal: () => new MethodNotFoundError('websocket-only'),
      },
      limits: () => ({
        requests: { max: config.rpc.max_request_batch_size, key: 'max_request_batch_size' },
        responseBytes: { max: 0, key: '' },
        timeout: { max: callTimeout(config), key: 'rpc_write_timeout' },
      }),
    })),
  ],
  exports: [RPC_ENGINE.node],
})
export class NodeRpcCoreModule {}
