import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { abciMethods } from './abci.methods';

@Module(methodsModule('node', 'abci', [abciMethods]))
export class AbciModule {}
