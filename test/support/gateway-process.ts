import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stopChild, stopChildGracefully } from './child-stop';

export interface GatewayProcess {
  readonly url: string;
  readonly home: string;
  /** SIGKILL: the process dies mid-whatever, its sockets reset. */
  kill(): Promise<void>;
  /** SIGTERM, then the home is removed. */
  close(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');
const LISTENING = 'node RPC listening on ';

/**
 * `rpc-gateway start` in a process of its own (the sources compiled on load), for tests that need
 * a gateway to die as a process does. `flags` are dotted keys (`devnet.follow`, …) passed as --set;
 * `env` is added to the process's environment.
 */
export async function startGatewayProcess(flags: Record<string, string> = {}, timeoutMs = 60_000, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-proc-'));
  const settings = { 'rpc.laddr': 'tcp://127.0.0.1:0', 'json-rpc.enable': 'false', 'devnet.block_time': '200ms', ...flags };
  const args = ['-r', join(ROOT, 'test', 'support', 'register-ts.js'), join(ROOT, 'src', 'main.ts'), 'start', '--home', home];
  for (const [key, value] of Object.entries(settings)) args.push('--set', `${key}=${value}`);
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  try {
    const url = await listeningUrl(child, timeoutMs);
    return {
      url,
      home,
      kill: async () => void (await stopChild(child, 'SIGKILL')),
      async close() {
        try {
          await stopChildGracefully(child, 'the gateway');
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await stopChild(child, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
    throw err;
  }
}

/** The node RPC URL from the start-up log line. */
function listeningUrl(child: ChildProcess, timeoutMs: number): Promise<string> {
  return untilLogged(child, timeoutMs, (msg) => (msg.startsWith(LISTENING) ? msg.slice(LISTENING.length).split(/[ ,]/)[0] : undefined));
}

/**
 * Reads a gateway process's JSON log lines until `found` returns a value for a line's message; fails
 * with the process's stderr if it exits first or `timeoutMs` passes.
 */
export function untilLogged<T>(child: ChildProcess, timeoutMs: number, found: (msg: string) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => reject(new Error(`the gateway did not start within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with ${code}: ${stderr}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let msg = '';
      try {
        msg = (JSON.parse(line) as { msg?: string }).msg ?? '';
      } catch {
        return;
      }
      const value = found(msg);
      if (value === undefined) return;
      clearTimeout(timer);
      resolve(value);
    });
  });
}
