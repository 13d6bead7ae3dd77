import { Module } from '@nestjs/common';
import { NODE_BACKEND } from '../../backends/node-backend';
import { EventsModule } from '../../events/events.module';
import { QueueModule } from '../../queue/queue.module';
import { methodsModule } from '../../rpc/registration';
import { TxBroadcasts } from './tx-broadcasts';
import { txMethods } from './tx.methods';

@Module(
  methodsModule('node', 'tx', [{ inject: [NODE_BACKEND, TxBroadcasts], methods: txMethods }], {
    imports: [QueueModule, EventsModule],
    providers: [TxBroadcasts],
  }),
)
export class TxModule {}
