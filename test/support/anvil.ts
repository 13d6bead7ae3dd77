/**
 * Real anvil processes (from the `@foundry-rs/anvil` npm package) for the EVM upstream tests. Two
 * started with the same `timestamp` and `chainId` share their genesis; with `noMining` they only mine
 * on `evm_mine`, so mining both with the same timestamp (and the same transactions) keeps their chains
 * identical, block hashes included.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { stopChildGracefully } from './child-stop';
import { join } from 'node:path';

export const ANVIL_BIN = join(__dirname, '..', '..', 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil');

/** anvil's first dev account (from its default mnemonic). */
export const ANVIL_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const ANVIL_ADDRESS_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export interface AnvilOptions {
  readonly timestamp?: number;
  readonly chainId?: number;
  readonly noMining?: boolean;
}

export class Anvil {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  static async start(options: AnvilOptions = {}): Promise<Anvil> {
    const anvil = new Anvil(await freePort());
    const args = ['--port', String(anvil.port), '--host', '127.0.0.1', '--silent'];
    if (options.timestamp !== undefined) args.push('--timestamp', String(options.timestamp));
    if (options.chainId !== undefined) args.push('--chain-id', String(options.chainId));
    if (options.noMining) args.push('--no-mining');
    anvil.child = spawn(ANVIL_BIN, args, { stdio: 'ignore' });
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await anvil.rpc('eth_chainId');
        return anvil;
      } catch {
        if (Date.now() > deadline) {
          anvil.kill();
          throw new Error(`anvil on port ${anvil.port} did not start`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** A JSON-RPC call straight to this anvil; throws on an error answer. */
  async rpc(method: string, params: unknown[] = []): Promise<any> {
    const res = await fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  }

  /** SIGKILL: the process dies at once, connections reset. */
  kill(): void {
    this.child?.kill('SIGKILL');
    this.child = undefined;
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) await stopChildGracefully(child, 'anvil');
  }
}

/** A TCP port nothing listens on now (for a server that must be told its port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
