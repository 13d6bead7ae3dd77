import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { UnsafeMethods } from './unsafe.methods';

@Module(methodsModule('node', 'unsafe', [UnsafeMethods]))
export class UnsafeModule {}
