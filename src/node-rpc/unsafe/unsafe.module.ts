import { Module } from '@nestjs/common';
import { NODE_BACKEND } from '../../backends/node-backend';
import { methodsModule } from '../../rpc/registration';
import { unsafeMethods } from './unsafe.methods';

@Module(methodsModule('node', 'unsafe', [{ inject: [NODE_BACKEND], methods: unsafeMethods }]))
export class UnsafeModule {}
