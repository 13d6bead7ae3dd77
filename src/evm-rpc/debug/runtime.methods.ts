import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { GatewayConfigService } from '../../config/gateway-config.service';
import type { CallContext } from '../../rpc/call-context';
import { ApplicationError } from '../../rpc/errors';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import * as c from '../codec/codecs';
import { CpuProfiler } from './runtime/cpu-profiler';
import { diagnosticReport, heapSnapshot } from './runtime/diagnostics';
import { EventLoopProfile } from './runtime/event-loop-profile';
import { GcMonitor } from './runtime/gc-monitor';
import { exposedGc, GcPercent } from './runtime/gc-percent';
import { ProfileFolder } from './runtime/profile-files';

/** cosmos/evm's answer (rpc/types ErrProfilingDisabled) to a runtime method while profiling is off. */
export const PROFILING_DISABLED = 'profiling disabled in the debug namespace';

/**
 * go-ethereum's runtime debug methods, answered by the Node.js process they run in (docs/evm-rpc.md
 * lists what each one means here). As in cosmos/evm, each one answers `profiling disabled in the debug
 * namespace` unless `[json-rpc] enable-profiling` or `[rpc] unsafe` is on (or the caller's API key
 * opens unsafe methods). Files are names under `$HOME/profiles` (ProfileFolder).
 */
@Injectable()
export class DebugRuntimeMethods implements MethodSource {
  constructor(
    private readonly gc: GcMonitor,
    private readonly gcPercent: GcPercent,
    private readonly eventLoop: EventLoopProfile,
    private readonly cpu: CpuProfiler,
    private readonly folder: ProfileFolder,
    private readonly config: GatewayConfigService,
  ) {}

  methods(): AnyMethod[] {
    const open = this.config.jsonRpc['enable-profiling'] || this.config.rpc.unsafe;
    return this.definitions().map((method) => (open ? method : gated(method)));
  }

  private definitions(): AnyMethod[] {
    const group = 'debug';
    const file = param('file', c.string);
    const seconds = param('nsec', c.uint64Number);
    return [
      defineMethod({ group, name: 'debug_memStats', params: [], handler: () => this.memStats() }),
      defineMethod({ group, name: 'debug_gcStats', params: [], handler: () => this.gc.stats() }),
      defineMethod({ group, name: 'debug_setGCPercent', params: [param('percent', c.int)], handler: (a) => this.gcPercent.set(a.percent) }),
      defineMethod({
        group,
        name: 'debug_freeOSMemory',
        params: [],
        handler: () => {
          exposedGc()?.();
          return null;
        },
      }),
      defineMethod({ group, name: 'debug_stacks', params: [], handler: () => stacks() }),
      defineMethod({ group, name: 'debug_writeMemProfile', params: [file], handler: (a) => this.folder.writeStream(a.file, heapSnapshot) }),
      defineMethod({
        group,
        name: 'debug_setBlockProfileRate',
        params: [param('rate', c.int)],
        handler: (a) => {
          this.eventLoop.setRate(a.rate);
          return null;
        },
      }),
      defineMethod({ group, name: 'debug_writeBlockProfile', params: [file], handler: (a) => this.writeBlockProfile(a.file) }),
      defineMethod({
        group,
        name: 'debug_blockProfile',
        params: [file, seconds],
        handler: async (a) => {
          await this.folder.check(a.file);
          this.eventLoop.setRate(1);
          await sleep(a.nsec * 1000);
          await this.writeBlockProfile(a.file);
          this.eventLoop.setRate(0);
          return null;
        },
      }),
      defineMethod({ group, name: 'debug_writeMutexProfile', params: [file], handler: (a) => this.folder.writeText(a.file, diagnosticReport()) }),
      defineMethod({ group, name: 'debug_startCPUProfile', params: [file], handler: (a) => this.cpu.start(a.file) }),
      defineMethod({ group, name: 'debug_stopCPUProfile', params: [], handler: () => this.cpu.stop() }),
      defineMethod({
        group,
        name: 'debug_cpuProfile',
        params: [file, seconds],
        handler: async (a) => {
          await this.cpu.start(a.file);
          await sleep(a.nsec * 1000);
          return this.cpu.stop();
        },
      }),
    ];
  }

  /** runtime.MemStats' field names, filled from process.memoryUsage() and V8's heap statistics. */
  private memStats(): Record<string, number> {
    const usage = process.memoryUsage();
    const heap = getHeapStatistics();
    return {
      Alloc: usage.heapUsed,
      Sys: usage.rss,
      HeapAlloc: usage.heapUsed,
      HeapSys: usage.heapTotal,
      HeapIdle: usage.heapTotal - usage.heapUsed,
      HeapInuse: usage.heapUsed,
      NextGC: heap.heap_size_limit,
      LastGC: this.gc.lastGC * 1e6,
      PauseTotalNs: this.gc.pauseTotalNs,
      NumGC: this.gc.numGC,
      External: usage.external,
      ArrayBuffers: usage.arrayBuffers,
    };
  }

  private writeBlockProfile(file: string): Promise<null> {
    return this.folder.writeText(file, diagnosticReport({ eventLoopDelay: this.eventLoop.snapshot() }));
  }
}

/** The method refused with cosmos/evm's error, except to a caller whose API key opens unsafe methods. */
function gated(method: AnyMethod): AnyMethod {
  const handler = method.handler;
  if (handler === undefined) return method;
  return {
    ...method,
    handler: (args: never, ctx: CallContext) => {
      if (ctx.caller?.key?.unsafe !== true) throw new ApplicationError(PROFILING_DISABLED);
      return handler(args, ctx);
    },
  };
}

/** The JavaScript stack and the event loop's active resources (Node's nearest to goroutine dumps). */
function stacks(): string {
  const report = process.report.getReport() as unknown as { javascriptStack?: { message?: string; stack?: string[] } };
  const stack = report.javascriptStack?.stack ?? [];
  const resources = process.getActiveResourcesInfo();
  const counts = new Map<string, number>();
  for (const resource of resources) counts.set(resource, (counts.get(resource) ?? 0) + 1);
  const lines = ['JavaScript stack:', ...stack.map((l) => `  ${l.trim()}`), '', 'Active resources:'];
  for (const [resource, n] of counts) lines.push(`  ${resource} x${n}`);
  return lines.join('\n') + '\n';
}
