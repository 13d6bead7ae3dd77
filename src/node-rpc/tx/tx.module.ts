import { Module } from '@nestjs/common';
import { categoryModule } from '../category-module';
import { txMethods } from './tx.methods';

@Module(categoryModule('tx', txMethods))
export class TxModule {}
