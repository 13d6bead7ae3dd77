import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { Web3Methods } from './web3.methods';

@Module(methodsModule('evm', 'web3', [Web3Methods]))
export class Web3Module {}
