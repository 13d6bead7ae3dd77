import { Module } from '@nestjs/common';
import { MinerSettings } from './miner-settings';

@Module({ providers: [MinerSettings], exports: [MinerSettings] })
export class MinerSettingsModule {}
