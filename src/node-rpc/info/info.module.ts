import { Module } from '@nestjs/common';
import { NODE_BACKEND } from '../../backends/node-backend';
import { methodsModule } from '../../rpc/registration';
import { infoMethods } from './info.methods';

@Module(methodsModule('node', 'info', [{ inject: [NODE_BACKEND], methods: infoMethods }]))
export class InfoModule {}
