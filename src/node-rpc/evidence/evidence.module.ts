import { Module } from '@nestjs/common';
import { categoryModule } from '../category-module';
import { evidenceMethods } from './evidence.methods';

@Module(categoryModule('evidence', evidenceMethods))
export class EvidenceModule {}
