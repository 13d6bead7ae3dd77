import { Module } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { MethodRegistry } from '../../rpc/method-registry';
import { EvmParamDecoder } from '../codec/evm-param-decoder';
import { JsonRpcMessageHandler } from '../envelope/message-handler';
import { NamespaceGuard } from '../guards/namespace.guard';
import { NotImplementedGuard } from '../guards/not-implemented.guard';
import { WebsocketOnlyGuard } from '../guards/websocket-only.guard';
import { EvmDispatcher } from './evm-dispatcher';
import { EvmErrorDialect } from './evm-error-dialect';
import { EVM_REGISTRY } from './evm-registry';
import { rpcModulesMethod } from './rpc-modules';

/** The EVM RPC's registry, request path and message handling; namespace modules import it. */
@Module({
  providers: [
    {
      provide: EVM_REGISTRY,
      inject: [GatewayConfigService],
      useFactory: (config: GatewayConfigService) => {
        const registry = new MethodRegistry();
        registry.register(rpcModulesMethod(registry, () => config.jsonRpc));
        return registry;
      },
    },
    NamespaceGuard,
    NotImplementedGuard,
    WebsocketOnlyGuard,
    {
      provide: EvmDispatcher,
      inject: [EVM_REGISTRY, NamespaceGuard, NotImplementedGuard, WebsocketOnlyGuard],
      useFactory: (registry: MethodRegistry, namespace: NamespaceGuard, notImplemented: NotImplementedGuard, wsOnly: WebsocketOnlyGuard) =>
        new EvmDispatcher(registry, new EvmParamDecoder(), [namespace, notImplemented, wsOnly], new EvmErrorDialect()),
    },
    {
      provide: JsonRpcMessageHandler,
      inject: [EvmDispatcher, GatewayConfigService],
      useFactory: (dispatcher: EvmDispatcher, config: GatewayConfigService) =>
        new JsonRpcMessageHandler(dispatcher, () => ({
          requests: config.jsonRpc['batch-request-limit'],
          responseBytes: config.jsonRpc['batch-response-max-size'],
        })),
    },
  ],
  exports: [EVM_REGISTRY, EvmDispatcher, JsonRpcMessageHandler],
})
export class EvmRpcCoreModule {}
