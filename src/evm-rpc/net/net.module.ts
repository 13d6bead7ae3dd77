import { Module } from '@nestjs/common';
import { namespaceModule } from '../core/namespace-module';
import { NetMethods } from './net.methods';

@Module(namespaceModule('net', [NetMethods]))
export class NetModule {}
