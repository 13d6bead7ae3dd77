import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startGateway } from '../../src/bootstrap';
import { UpstreamPools } from '../../src/backends/upstream/upstream.module';
import type { UpstreamPool } from '../../src/backends/upstream/upstream-pool';
import type { WsMultiplexer } from '../../src/backends/upstream/ws-multiplexer';
import { loadConfig } from '../../src/config/load-config';
import { pluginNamespaces } from '../../src/plugins/loader';
import type { TestGateway } from './gateway';
import { stopChild, stopChildGracefully } from './child-stop';

export interface UpstreamGateway extends TestGateway {
  /** The node side of the upstream backend: its pool, and the multiplexer of its subscriptions. */
  readonly backend: { readonly pool: UpstreamPool; readonly events: WsMultiplexer };
}

export interface NodeEntry {
  readonly name: string;
  readonly url: string;
  readonly weight?: number;
}

export interface EvmEntry extends NodeEntry {
  /** ws:// URL of its EVM WebSocket. */
  readonly ws?: string;
}

export interface UpstreamGatewayOptions {
  /** `[upstream]` settings (health_check_interval defaults to 200ms). */
  readonly settings?: Record<string, string | number>;
  /** `[[upstream.evm]]` entries. */
  readonly evm?: readonly EvmEntry[];
  /** CLI flags over the defaults (node RPC on an ephemeral port, EVM RPC off). */
  readonly flags?: Record<string, string>;
}

/** Writes `[backend] kind = "upstream"` and the upstream tables into a fresh home and starts a gateway on it. */
export async function startUpstreamGateway(nodes: readonly NodeEntry[], options: UpstreamGatewayOptions = {}): Promise<UpstreamGateway> {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-up-'));
  mkdirSync(join(home, 'config'));
  const settings = { health_check_interval: '200ms', ...options.settings };
  writeFileSync(join(home, 'config', 'gateway.toml'), upstreamToml(nodes, settings, options.evm));
  const config = loadConfig({ home, env: {}, flags: { 'rpc.laddr': 'tcp://127.0.0.1:0', 'json-rpc.enable': 'false', ...options.flags }, pluginNamespaces });
  const gw = await startGateway(config, { logger: false });
  const url = gw.nodeRpcUrls[0];
  return {
    ...gw,
    url,
    wsUrl: url.replace(/^http/, 'ws') + '/websocket',
    home,
    backend: { pool: gw.app.get(UpstreamPools).node, events: gw.app.get(UpstreamPools).events },
    async close() {
      await gw.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export function upstreamToml(nodes: readonly NodeEntry[], settings: Record<string, string | number>, evm: readonly EvmEntry[] = []): string {
  const value = (v: string | number) => (typeof v === 'number' ? String(v) : JSON.stringify(v));
  const lines = ['[backend]', 'kind = "upstream"', '', '[upstream]'];
  for (const [k, v] of Object.entries(settings)) lines.push(`${k} = ${value(v)}`);
  const entry = (table: string, e: EvmEntry) => {
    lines.push('', `[[upstream.${table}]]`, `name = ${value(e.name)}`, `url = ${value(e.url)}`, `weight = ${e.weight ?? 1}`);
    if (e.ws !== undefined) lines.push(`ws = ${value(e.ws)}`);
  };
  for (const n of nodes) entry('node', n);
  for (const e of evm) entry('evm', e);
  return lines.join('\n') + '\n';
}

/**
 * A TCP proxy in front of an upstream that a test can break: `kill()` drops every connection and
 * refuses new ones until `revive()`; `hang()` accepts connections but forwards nothing.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private hanging = false;
  port = 0;

  constructor(private readonly targetPort: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => client.destroy());
      if (this.hanging) return;
      const upstream = connect(this.targetPort, '127.0.0.1');
      this.sockets.add(upstream);
      upstream.on('close', () => {
        this.sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** Drops every connection and stops listening (new connections are refused). */
  async kill(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** Listens again on the same port. */
  revive(): Promise<this> {
    this.hanging = false;
    return this.start();
  }

  /** New connections are accepted but never answered; existing ones are dropped. */
  hang(): void {
    this.hanging = true;
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    await this.kill();
  }
}

/**
 * A TCP proxy that holds every chunk a client sends for `delayMs` before passing it on (answers come
 * back at once): an upstream made uniformly slow. `requests(text)` counts the chunks that contained
 * `text` (a method name), i.e. the requests of that method it saw.
 */
export class DelayProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly seen = new Map<string, number>();
  /** Header blocks of the HTTP requests received. */
  private readonly heads: string[] = [];
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly delayMs: number,
    /** Method names to count. */
    private readonly watched: readonly string[] = [],
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  requests(method: string): number {
    return this.seen.get(method) ?? 0;
  }

  /** The values of header `name` (lower case) in the requests received so far, in order. */
  headerValues(name: string): string[] {
    const line = new RegExp(`^${name}: *(.*)$`, 'im');
    return this.heads.flatMap((head) => line.exec(head)?.[1] ?? []);
  }

  async start(): Promise<this> {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('data', (chunk: Buffer) => {
        const text = chunk.toString('latin1');
        if (/^[A-Z]+ \S+ HTTP\/1/.test(text)) this.heads.push(text.slice(0, Math.max(0, text.indexOf('\r\n\r\n'))));
        for (const m of this.watched) if (text.includes(`"${m}"`)) this.seen.set(m, (this.seen.get(m) ?? 0) + 1);
        // Equal delays fire in order, so the byte stream stays in order.
        setTimeout(() => upstream.destroyed || upstream.write(chunk), this.delayMs);
      });
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export interface UpstreamGatewayProcess {
  readonly pid: number;
  readonly home: string;
  /** The EVM JSON-RPC over HTTP, and over WebSocket. */
  readonly evmUrl: string;
  readonly evmWsUrl: string;
  /** Messages of the JSON log lines so far. */
  readonly logs: string[];
  /** The JSON log lines so far, parsed. */
  readonly entries: readonly Record<string, unknown>[];
  /** Writes `toml` as its config/gateway.toml and sends SIGHUP. */
  reload(toml: string): void;
  /** Resolves at the first log message (from now on, or already logged after `since` lines) matching `re`. */
  waitForLog(re: RegExp, timeoutMs?: number, since?: number): Promise<string>;
  /** Resolves with the exit code once the process has exited (null after a signal it did not handle). */
  readonly exited: Promise<number | null>;
  close(): Promise<void>;
}

const ROOT = join(__dirname, '..', '..');

/**
 * `rpc-gateway start` in a process of its own (sources compiled on load, as gateway-process.ts does) on
 * a home whose gateway.toml is `toml`, with the EVM JSON-RPC on an ephemeral port: for tests that send
 * it SIGHUP.
 */
export async function startUpstreamGatewayProcess(toml: string, flags: Record<string, string> = {}, timeoutMs = 60_000, env: Record<string, string> = {}): Promise<UpstreamGatewayProcess> {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-upproc-'));
  mkdirSync(join(home, 'config'));
  const configFile = join(home, 'config', 'gateway.toml');
  writeFileSync(configFile, toml);
  const settings = {
    'rpc.laddr': 'tcp://127.0.0.1:0',
    'json-rpc.enable': 'true',
    'json-rpc.address': '127.0.0.1:0',
    'json-rpc.ws-address': '127.0.0.1:0',
    'json-rpc.api': 'eth,net,web3',
    ...flags,
  };
  const args = ['-r', join(ROOT, 'test', 'support', 'register-ts.js'), join(ROOT, 'src', 'main.ts'), 'start', '--home', home];
  for (const [key, value] of Object.entries(settings)) args.push('--set', `${key}=${value}`);
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logs: string[] = [];
  const entries: Record<string, unknown>[] = [];
  const waiters = new Set<(msg: string) => void>();
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const msg = String(entry.msg ?? '');
    entries.push(entry);
    logs.push(msg);
    for (const w of [...waiters]) w(msg);
  });
  const waitForLog = (re: RegExp, ms = 30_000, since = logs.length): Promise<string> => {
    const already = logs.slice(since).find((m) => re.test(m));
    if (already !== undefined) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no log line matching ${re} within ${ms} ms: ${stderr}\n${logs.slice(-20).join('\n')}`));
      }, ms);
      const check = (msg: string) => {
        if (!re.test(msg)) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(msg);
      };
      waiters.add(check);
      child.once('exit', (code) => {
        if (!waiters.delete(check)) return;
        clearTimeout(timer);
        reject(new Error(`the gateway exited with ${code}: ${stderr}`));
      });
    });
  };
  try {
    const line = await waitForLog(/^EVM JSON-RPC listening on /, timeoutMs, 0);
    const [evmUrl, evmWsUrl] = line.slice('EVM JSON-RPC listening on '.length).split(' and ');
    return {
      pid: child.pid!,
      home,
      evmUrl,
      evmWsUrl,
      logs,
      entries,
      reload(text: string) {
        writeFileSync(configFile, text);
        child.kill('SIGHUP');
      },
      waitForLog,
      exited,
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
