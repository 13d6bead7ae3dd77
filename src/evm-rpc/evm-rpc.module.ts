import { Module } from '@nestjs/common';
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

/**
 * The EVM RPC: every namespace registers its methods (which ones are served is `[json-rpc] api`'s
 * business, checked per call) and its HTTP and WebSocket transports.
 */
@Module({
  imports: [
    EvmRpcCoreModule,
    RpcModulesModule,
    EthModule,
    FiltersModule,
    SubscriptionsModule,
    Web3Module,
    NetModule,
    TxpoolModule,
    PersonalModule,
    DebugModule,
    AdminModule,
    MinerModule,
  ],
  providers: [EvmHttpTransport, EvmWsGateway],
  exports: [EvmRpcCoreModule],
})
export class EvmRpcModule {}
