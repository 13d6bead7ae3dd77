import { Global, Module } from '@nestjs/common';
import { Listeners } from './listeners';
import { MethodRegistry } from './method-registry';
import { METHOD_REGISTRY } from './registration';

/** Both interfaces' method registries and the owner of every listener, reachable from every module. */
@Global()
@Module({
  providers: [{ provide: METHOD_REGISTRY.node, useFactory: () => new MethodRegistry() }, { provide: METHOD_REGISTRY.evm, useFactory: () => new MethodRegistry() }, Listeners],
  exports: [METHOD_REGISTRY.node, METHOD_REGISTRY.evm, Listeners],
})
export class RpcCoreModule {}
