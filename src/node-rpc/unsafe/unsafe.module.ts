import { Module } from '@nestjs/common';
import { categoryModule } from '../category-module';
import { unsafeMethods } from './unsafe.methods';

@Module(categoryModule('unsafe', unsafeMethods))
export class UnsafeModule {}
