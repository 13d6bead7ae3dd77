import { Module } from '@nestjs/common';
import { namespaceModule } from '../core/namespace-module';
import { MinerMethods } from './miner.methods';
import { MinerSettingsModule } from './miner-settings.module';

@Module(namespaceModule('miner', [MinerMethods], { imports: [MinerSettingsModule] }))
export class MinerModule {}
