import { Global, Module } from '@nestjs/common';
import { GatewayConfigService } from '../config/gateway-config.service';
import { Listeners } from './listeners';
import { MethodRegistry } from './method-registry';
import { METHOD_REGISTRY } from './registration';
import { UnfinishedBytes } from './unfinished-bytes';

/**
 * Both interfaces' method registries, the owner of every listener and the budget of input not yet a
 * request, reachable from every module.
 */
@Global()
@Module({
  providers: [
    { provide: METHOD_REGISTRY.node, useFactory: () => new MethodRegistry() },
    { provide: METHOD_REGISTRY.evm, useFactory: () => new MethodRegistry() },
    {
      provide: UnfinishedBytes,
      useFactory: (config: GatewayConfigService) => new UnfinishedBytes(config.gateway.limits.max_unfinished_bytes_per_ip, config.gateway.limits.max_unfinished_bytes),
      inject: [GatewayConfigService],
    },
    Listeners,
  ],
  exports: [METHOD_REGISTRY.node, METHOD_REGISTRY.evm, Listeners, UnfinishedBytes],
})
export class RpcCoreModule {}
