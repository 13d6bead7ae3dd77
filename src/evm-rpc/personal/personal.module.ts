import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { namespaceModule } from '../core/namespace-module';
import { PersonalMethods } from './personal.methods';

@Module(namespaceModule('personal', [PersonalMethods], { imports: [AccountsModule] }))
export class PersonalModule {}
