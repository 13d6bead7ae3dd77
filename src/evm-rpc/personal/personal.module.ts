import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { AccountsModule } from '../accounts/accounts.module';
import { PersonalMethods } from './personal.methods';

@Module(methodsModule('evm', 'personal', [PersonalMethods], { imports: [AccountsModule] }))
export class PersonalModule {}
