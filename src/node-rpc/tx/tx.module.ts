import { Module } from '@nestjs/common';
import { EventsModule } from '../../events/events.module';
import { QueueModule } from '../../queue/queue.module';
import { methodsModule } from '../../rpc/registration';
import { TxBroadcasts } from './tx-broadcasts';
import { txMethods } from './tx.methods';

@Module(
  methodsModule('node', 'tx', [{ inject: [TxBroadcasts], methods: txMethods }], {
    imports: [QueueModule, EventsModule],
    providers: [TxBroadcasts],
  }),
)
export class TxModule {}
