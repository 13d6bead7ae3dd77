import { Module } from '@nestjs/common';
import { NODE_BACKEND } from '../../backends/node-backend';
import { methodsModule } from '../../rpc/registration';
import { abciMethods } from './abci.methods';

@Module(methodsModule('node', 'abci', [{ inject: [NODE_BACKEND], methods: abciMethods }]))
export class AbciModule {}
