import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { ApplicationError } from '../../../rpc/errors';

/** go-ethereum's expandHome: a leading `~/` is the user's home; relative paths are from the cwd. */
export function profilePath(file: string): string {
  return resolve(file.startsWith('~/') ? homedir() + file.slice(1) : file);
}

export async function writeProfileFile(file: string, text: string): Promise<void> {
  try {
    await writeFile(profilePath(file), text);
  } catch (err) {
    throw new ApplicationError(`open ${file}: ${(err as Error).message}`);
  }
}

/** debug_writeMemProfile: a V8 heap snapshot (open it in Chrome DevTools' Memory tab). */
export function writeHeapProfile(file: string): null {
  try {
    writeHeapSnapshot(profilePath(file));
  } catch (err) {
    throw new ApplicationError(`open ${file}: ${(err as Error).message}`);
  }
  return null;
}

/** Node's diagnostic report (stacks, heap, libuv handles, thread pool), plus any extra sections. */
export async function writeDiagnosticReport(file: string, extra: Record<string, unknown> = {}): Promise<null> {
  const report = process.report.getReport() as unknown as Record<string, unknown>;
  await writeProfileFile(file, JSON.stringify({ ...report, ...extra }, null, 2));
  return null;
}
