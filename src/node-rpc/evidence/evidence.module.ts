import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { evidenceMethods } from './evidence.methods';

@Module(methodsModule('node', 'evidence', [evidenceMethods]))
export class EvidenceModule {}
