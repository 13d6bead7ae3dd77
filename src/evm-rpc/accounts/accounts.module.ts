import { Module } from '@nestjs/common';
import { QueueModule } from '../../queue/queue.module';
import { MinerSettingsModule } from '../miner/miner-settings.module';
import { DevKeystore } from './dev-keystore';
import { TransactionDefaults } from './transaction-defaults';
import { TransactionSubmitter } from './transaction-submitter';

/** The dev keystore and the path every transaction takes out, through the broadcast queue (shared by eth and personal). */
@Module({
  imports: [MinerSettingsModule, QueueModule],
  providers: [DevKeystore, TransactionDefaults, TransactionSubmitter],
  exports: [DevKeystore, TransactionDefaults, TransactionSubmitter],
})
export class AccountsModule {}
