import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { InfoMethods } from './info.methods';

@Module(methodsModule('node', 'info', [InfoMethods]))
export class InfoModule {}
