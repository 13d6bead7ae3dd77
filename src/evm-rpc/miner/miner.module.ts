import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { MinerMethods } from './miner.methods';
import { MinerSettingsModule } from './miner-settings.module';

@Module(methodsModule('evm', 'miner', [MinerMethods], { imports: [MinerSettingsModule] }))
export class MinerModule {}
