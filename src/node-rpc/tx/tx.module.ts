import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { TxMethods } from './tx.methods';

@Module(methodsModule('node', 'tx', [TxMethods]))
export class TxModule {}
