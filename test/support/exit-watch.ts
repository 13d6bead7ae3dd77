/**
 * Jest's global teardown: should jest still be running HANG_MS after its last suite (something holds
 * its event loop open that the per-suite checks did not catch), prints what holds it, so that a run that
 * never ends says why. The timer is unref'd: it never holds the process itself.
 */
import { queryObjects } from 'node:v8';
import { processesOfThisGroup } from './process-group';

const HANG_MS = 10_000;

export default function exitWatch(): void {
  setTimeout(() => process.stderr.write(`\njest has not exited ${HANG_MS / 1000} s after its last suite; it holds:\n${holding().join('\n')}\n`), HANG_MS).unref();
}

function holding(): string[] {
  const lines = [`resources: ${process.getActiveResourcesInfo().join(', ')}`];
  for (const handle of (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles()) {
    const h = handle as { fd?: number; _handle?: { fd?: number }; pid?: number; remoteAddress?: string; remotePort?: number; address?(): unknown };
    const what = h.pid !== undefined ? `pid ${h.pid}` : h.remoteAddress !== undefined ? `to ${h.remoteAddress}:${h.remotePort}` : `fd ${h.fd ?? h._handle?.fd}`;
    lines.push(`handle ${handle.constructor.name} ${what}`);
  }
  const timeoutClass = setTimeout(() => undefined, 0).constructor as new () => object;
  for (const timer of queryObjects(timeoutClass, { format: 'summary' }) as string[]) {
    if (timer.includes('_destroyed: false') && timer.includes('[Symbol(refed)]: true')) lines.push(`timer ${timer.replace(/\s+/g, ' ')}`);
  }
  for (const p of processesOfThisGroup()) lines.push(`process ${p.pid} (parent ${p.ppid}) ${p.command}`);
  return lines;
}
