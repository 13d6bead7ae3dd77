import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { CpuProfiler } from './runtime/cpu-profiler';
import { EventLoopProfile } from './runtime/event-loop-profile';
import { GcMonitor } from './runtime/gc-monitor';
import { GcPercent } from './runtime/gc-percent';
import { ProfileFolder } from './runtime/profile-files';
import { DebugRuntimeMethods } from './runtime.methods';
import { debugTraceMethods } from './trace.methods';

@Module(methodsModule('evm', 'debug', [debugTraceMethods, DebugRuntimeMethods], { providers: [GcMonitor, GcPercent, EventLoopProfile, CpuProfiler, ProfileFolder] }))
export class DebugModule {}
