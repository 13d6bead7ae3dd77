import { Module } from '@nestjs/common';
import { EVM_BACKEND } from '../../backends/evm-backend';
import { methodsModule } from '../../rpc/registration';
import { txpoolMethods } from './txpool.methods';

@Module(methodsModule('evm', 'txpool', [{ inject: [EVM_BACKEND], methods: txpoolMethods }]))
export class TxpoolModule {}
