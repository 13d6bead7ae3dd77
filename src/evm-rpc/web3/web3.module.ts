import { Module } from '@nestjs/common';
import { namespaceModule } from '../core/namespace-module';
import { Web3Methods } from './web3.methods';

@Module(namespaceModule('web3', [Web3Methods]))
export class Web3Module {}
