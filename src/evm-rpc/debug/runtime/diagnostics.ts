import { getHeapSnapshot } from 'node:v8';
import type { Readable } from 'node:stream';

/**
 * Node's diagnostic report (stacks, heap, libuv handles, thread pool) as JSON text, plus any extra
 * sections, without what belongs to the host rather than the process: the environment variables
 * (secrets travel there: Node 20 has no `process.report.excludeEnv`, so the section is dropped here)
 * and the network interfaces.
 */
export function diagnosticReport(extra: Record<string, unknown> = {}): string {
  const report = process.report.getReport() as unknown as Record<string, unknown>;
  delete report.environmentVariables;
  const header = report.header;
  if (typeof header === 'object' && header !== null) delete (header as Record<string, unknown>).networkInterfaces;
  return JSON.stringify({ ...report, ...extra }, null, 2);
}

/**
 * A V8 heap snapshot (open it in Chrome DevTools' Memory tab). Taking it stops the event loop while
 * V8 walks the heap (about a second per 20–40 MB of heap), then the text streams out in chunks.
 */
export function heapSnapshot(): Readable {
  return getHeapSnapshot();
}
