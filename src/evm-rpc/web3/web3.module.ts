import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { web3Methods } from './web3.methods';

@Module(methodsModule('evm', 'web3', [web3Methods]))
export class Web3Module {}
