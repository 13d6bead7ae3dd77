import { Module } from '@nestjs/common';
import { MinerSettingsModule } from '../miner/miner-settings.module';
import { DevKeystore } from './dev-keystore';
import { TransactionDefaults } from './transaction-defaults';
import { TransactionSubmitter } from './transaction-submitter';

/** The dev keystore and the path every transaction takes out (shared by eth and personal). */
@Module({
  imports: [MinerSettingsModule],
  providers: [DevKeystore, TransactionDefaults, TransactionSubmitter],
  exports: [DevKeystore, TransactionDefaults, TransactionSubmitter],
})
export class AccountsModule {}
