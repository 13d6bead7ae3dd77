import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { netMethods } from './net.methods';

@Module(methodsModule('evm', 'net', [netMethods]))
export class NetModule {}
