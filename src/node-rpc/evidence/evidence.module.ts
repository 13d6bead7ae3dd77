import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { EvidenceMethods } from './evidence.methods';

@Module(methodsModule('node', 'evidence', [EvidenceMethods]))
export class EvidenceModule {}
