import { Module } from '@nestjs/common';
import { categoryModule } from '../category-module';
import { infoMethods } from './info.methods';

@Module(categoryModule('info', infoMethods))
export class InfoModule {}
