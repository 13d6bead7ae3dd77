import { Module } from '@nestjs/common';
import { AbciModule } from './abci/abci.module';
import { EvidenceModule } from './evidence/evidence.module';
import { InfoModule } from './info/info.module';
import { NodeRpcCoreModule } from './node-rpc-core.module';
import { SubscriptionsModule } from './subscriptions/subscriptions.module';
import { NodeHttpTransport } from './transports/node-http.transport';
import { NodeWsGateway } from './transports/node-ws.gateway';
import { TxModule } from './tx/tx.module';
import { UnsafeModule } from './unsafe/unsafe.module';

/** The node RPC: its categories of methods and its transports. */
@Module({
  imports: [NodeRpcCoreModule, InfoModule, TxModule, AbciModule, EvidenceModule, UnsafeModule, SubscriptionsModule],
  providers: [NodeHttpTransport, NodeWsGateway],
  exports: [NodeRpcCoreModule],
})
export class NodeRpcModule {}
