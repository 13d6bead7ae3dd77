import { Module } from '@nestjs/common';
import { EVM_BACKEND } from '../../backends/evm-backend';
import { methodsModule } from '../../rpc/registration';
import { netMethods } from './net.methods';

@Module(methodsModule('evm', 'net', [{ inject: [EVM_BACKEND], methods: netMethods }]))
export class NetModule {}
