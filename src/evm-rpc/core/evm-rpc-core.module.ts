import { Module } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { RpcEngine, type Executor } from '../../rpc/engine';
import { EVM_EXECUTOR } from '../../backends/forwarders';
import type { MethodRegistry } from '../../rpc/method-registry';
import { METHOD_REGISTRY, RPC_ENGINE } from '../../rpc/registration';
import { EvmDialect } from '../evm-dialect';
import { NotificationsNotSupportedError } from '../evm-errors';
import { RPC_NAMESPACE } from './rpc-modules';

/**
 * The EVM RPC's engine: its registry, go-ethereum's dialect, and the guard policy of `[json-rpc]`
 * (a namespace not listed in `api` does not exist for clients; `rpc` always does).
 */
@Module({
  providers: [
    {
      provide: RPC_ENGINE.evm,
      inject: [METHOD_REGISTRY.evm, GatewayConfigService, { token: EVM_EXECUTOR, optional: true }],
      useFactory: (registry: MethodRegistry, config: GatewayConfigService, executor?: Executor) => {
        const engine = new RpcEngine(
          new EvmDialect(),
          registry,
          {
            unsafeEnabled: () => config.rpc.unsafe,
            groupEnabled: (group) => group === RPC_NAMESPACE || config.jsonRpc.api.includes(group),
            websocketOnlyRefusal: () => new NotificationsNotSupportedError(),
          },
          () => ({
            requests: { max: config.jsonRpc['batch-request-limit'], key: 'batch-request-limit' },
            responseBytes: { max: config.jsonRpc['batch-response-max-size'], key: 'batch-response-max-size' },
          }),
        );
        if (executor) engine.useExecutor(executor);
        return engine;
      },
    },
  ],
  exports: [RPC_ENGINE.evm],
})
export class EvmRpcCoreModule {}
