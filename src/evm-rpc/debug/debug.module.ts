import { Module } from '@nestjs/common';
import { namespaceModule } from '../core/namespace-module';
import { CpuProfiler } from './runtime/cpu-profiler';
import { EventLoopProfile } from './runtime/event-loop-profile';
import { GcMonitor } from './runtime/gc-monitor';
import { GcPercent } from './runtime/gc-percent';
import { DebugRuntimeMethods } from './runtime.methods';
import { DebugTraceMethods } from './trace.methods';

@Module(namespaceModule('debug', [DebugTraceMethods, DebugRuntimeMethods], { providers: [GcMonitor, GcPercent, EventLoopProfile, CpuProfiler] }))
export class DebugModule {}
