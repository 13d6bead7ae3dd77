import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { OpenedNamespace } from '../access/opened-namespaces';
import { AdminModule } from './admin/admin.module';
import { EvmRpcCoreModule } from './core/evm-rpc-core.module';
import { RpcModulesModule } from './core/rpc-modules.module';
import { DebugModule } from './debug/debug.module';
import { EthModule } from './eth/eth.module';
import { FiltersModule } from './filters/filters.module';
import { MinerModule } from './miner/miner.module';
import { NetModule } from './net/net.module';
import { PersonalModule } from './personal/personal.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { EvmHttpTransport } from './transports/http/evm-http.transport';
import { TxpoolModule } from './txpool/txpool.module';
import { EvmWsGateway } from './transports/ws/evm-ws.gateway';
import { Web3Module } from './web3/web3.module';

/** The modules of each namespace (`rpc`, always served, is part of the core). */
const NAMESPACES: Readonly<Record<string, readonly Type[]>> = {
  eth: [EthModule, FiltersModule, SubscriptionsModule],
  web3: [Web3Module],
  net: [NetModule],
  txpool: [TxpoolModule],
  personal: [PersonalModule],
  debug: [DebugModule],
  admin: [AdminModule],
  miner: [MinerModule],
};

/**
 * The EVM RPC: its engine, its transports, and the modules of the namespaces the configuration can
 * serve (see opened-namespaces.ts); a namespace nobody can open builds nothing.
 */
@Module({})
export class EvmRpcModule {
  static forRoot(opened: OpenedNamespace): DynamicModule {
    const namespaces = Object.entries(NAMESPACES).filter(([namespace]) => opened(namespace));
    return {
      module: EvmRpcModule,
      imports: [EvmRpcCoreModule, RpcModulesModule, ...namespaces.flatMap(([, modules]) => modules)],
      providers: [EvmHttpTransport, EvmWsGateway],
      exports: [EvmRpcCoreModule],
    };
  }
}
