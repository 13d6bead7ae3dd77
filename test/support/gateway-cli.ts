import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the `rpc-gateway` command line (the sources compiled on load) to its end with `args` and, unless
 * `--home` is among them, a fresh home removed afterwards. For commands that exit by themselves.
 */
export async function runGatewayCli(args: readonly string[], home?: string): Promise<CliRun> {
  const dir = home ?? mkdtempSync(join(tmpdir(), 'rpcgw-cli-'));
  const argv = ['-r', join(ROOT, 'test', 'support', 'register-ts.js'), join(ROOT, 'src', 'main.ts'), ...args, ...(args.includes('--home') ? [] : ['--home', dir])];
  try {
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    return { code, stdout, stderr };
  } finally {
    if (home === undefined) rmSync(dir, { recursive: true, force: true });
  }
}
