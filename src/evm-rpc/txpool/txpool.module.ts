import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { txpoolMethods } from './txpool.methods';

@Module(methodsModule('evm', 'txpool', [txpoolMethods]))
export class TxpoolModule {}
