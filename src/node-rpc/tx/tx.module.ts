import { Module } from '@nestjs/common';
import { NODE_BACKEND } from '../../backends/node-backend';
import { methodsModule } from '../../rpc/registration';
import { txMethods } from './tx.methods';

@Module(methodsModule('node', 'tx', [{ inject: [NODE_BACKEND], methods: txMethods }]))
export class TxModule {}
