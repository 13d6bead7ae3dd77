import { Module } from '@nestjs/common';
import { NODE_BACKEND } from '../../backends/node-backend';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { methodsModule } from '../../rpc/registration';
import { infoMethods } from './info.methods';

@Module(methodsModule('node', 'info', [{ inject: [NODE_BACKEND, GatewayConfigService], methods: infoMethods }]))
export class InfoModule {}
