import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { RPC_NAMESPACE, RpcModulesMethods } from './rpc-modules';

/** The `rpc` namespace: rpc_modules. */
@Module(methodsModule('evm', RPC_NAMESPACE, [RpcModulesMethods]))
export class RpcModulesModule {}
