import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { NetMethods } from './net.methods';

@Module(methodsModule('evm', 'net', [NetMethods]))
export class NetModule {}
