import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import type { MethodSpec } from '../../rpc/method-spec';
import { param, type MethodTable } from '../core/evm-method';
import { CpuProfiler } from './runtime/cpu-profiler';
import { EventLoopProfile } from './runtime/event-loop-profile';
import { GcMonitor } from './runtime/gc-monitor';
import { exposedGc, GcPercent } from './runtime/gc-percent';
import { writeDiagnosticReport, writeHeapProfile } from './runtime/profile-files';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/**
 * go-ethereum's runtime debug methods, answered by the Node.js process they run in (docs/evm-rpc.md
 * lists what each one means here).
 */
@Injectable()
export class DebugRuntimeMethods implements MethodTable {
  constructor(
    private readonly gc: GcMonitor,
    private readonly gcPercent: GcPercent,
    private readonly eventLoop: EventLoopProfile,
    private readonly cpu: CpuProfiler,
  ) {}

  methods(): MethodSpec[] {
    const group = 'debug';
    const file = param('file', 'string');
    const seconds = param('nsec', 'uint64Number');
    return [
      { group, name: 'debug_memStats', params: [], handler: () => this.memStats() },
      { group, name: 'debug_gcStats', params: [], handler: () => this.gc.stats() },
      { group, name: 'debug_setGCPercent', params: [param('percent', 'int')], handler: (a: A) => this.gcPercent.set(a.percent) },
      {
        group,
        name: 'debug_freeOSMemory',
        params: [],
        handler: () => {
          exposedGc()?.();
          return null;
        },
      },
      { group, name: 'debug_stacks', params: [], handler: () => stacks() },
      { group, name: 'debug_writeMemProfile', params: [file], handler: (a: A) => writeHeapProfile(a.file) },
      {
        group,
        name: 'debug_setBlockProfileRate',
        params: [param('rate', 'int')],
        handler: (a: A) => {
          this.eventLoop.setRate(a.rate);
          return null;
        },
      },
      { group, name: 'debug_writeBlockProfile', params: [file], handler: (a: A) => this.writeBlockProfile(a.file) },
      {
        group,
        name: 'debug_blockProfile',
        params: [file, seconds],
        handler: async (a: A) => {
          this.eventLoop.setRate(1);
          await sleep(a.nsec * 1000);
          await this.writeBlockProfile(a.file);
          this.eventLoop.setRate(0);
          return null;
        },
      },
      { group, name: 'debug_writeMutexProfile', params: [file], handler: (a: A) => writeDiagnosticReport(a.file) },
      { group, name: 'debug_startCPUProfile', params: [file], handler: (a: A) => this.cpu.start(a.file) },
      { group, name: 'debug_stopCPUProfile', params: [], handler: () => this.cpu.stop() },
      {
        group,
        name: 'debug_cpuProfile',
        params: [file, seconds],
        handler: async (a: A) => {
          await this.cpu.start(a.file);
          await sleep(a.nsec * 1000);
          return this.cpu.stop();
        },
      },
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
    return writeDiagnosticReport(file, { eventLoopDelay: this.eventLoop.snapshot() });
  }
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
