import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { AbciMethods } from './abci.methods';

@Module(methodsModule('node', 'abci', [AbciMethods]))
export class AbciModule {}
