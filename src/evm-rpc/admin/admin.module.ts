import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { AdminMethods } from './admin.methods';

@Module(methodsModule('evm', 'admin', [AdminMethods]))
export class AdminModule {}
