import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { TxpoolMethods } from './txpool.methods';

@Module(methodsModule('evm', 'txpool', [TxpoolMethods]))
export class TxpoolModule {}
