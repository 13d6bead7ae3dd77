import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { unsafeMethods } from './unsafe.methods';

@Module(methodsModule('node', 'unsafe', [unsafeMethods]))
export class UnsafeModule {}
