import { Module } from '@nestjs/common';
import { namespaceModule } from '../core/namespace-module';
import { TxpoolMethods } from './txpool.methods';

@Module(namespaceModule('txpool', [TxpoolMethods]))
export class TxpoolModule {}
