import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../../src/bootstrap';
import { NODE_BACKEND } from '../../src/backends/node-backend';
import type { UpstreamNodeBackend } from '../../src/backends/upstream/upstream-node-backend';
import { loadConfig } from '../../src/config/load-config';
import { pluginNamespaces } from '../../src/plugins/loader';
import type { TestGateway } from './gateway';

export interface UpstreamGateway extends TestGateway {
  readonly backend: UpstreamNodeBackend;
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
    backend: gw.app.get<UpstreamNodeBackend>(NODE_BACKEND),
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
