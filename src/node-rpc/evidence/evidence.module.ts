import { Module } from '@nestjs/common';
import { NODE_BACKEND } from '../../backends/node-backend';
import { methodsModule } from '../../rpc/registration';
import { evidenceMethods } from './evidence.methods';

@Module(methodsModule('node', 'evidence', [{ inject: [NODE_BACKEND], methods: evidenceMethods }]))
export class EvidenceModule {}
