import { Module } from '@nestjs/common';
import { categoryModule } from '../category-module';
import { abciMethods } from './abci.methods';

@Module(categoryModule('abci', abciMethods))
export class AbciModule {}
