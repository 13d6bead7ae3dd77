import { Module } from '@nestjs/common';
import { namespaceModule } from '../core/namespace-module';
import { AdminMethods } from './admin.methods';

@Module(namespaceModule('admin', [AdminMethods]))
export class AdminModule {}
