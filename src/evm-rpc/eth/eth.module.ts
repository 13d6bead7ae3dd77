import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { AccountsModule } from '../accounts/accounts.module';
import { MinerSettingsModule } from '../miner/miner-settings.module';
import { EthAccountMethods } from './account.methods';
import { EthBlockMethods } from './blocks.methods';
import { EthChainMethods } from './chain.methods';
import { ethStateMethods } from './state.methods';

/** The eth namespace (filters and subscriptions register from their own modules). */
@Module(methodsModule('evm', 'eth', [EthChainMethods, ethStateMethods, EthBlockMethods, EthAccountMethods], { imports: [AccountsModule, MinerSettingsModule] }))
export class EthModule {}
