import { Injectable, Logger } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayConfigService } from '../config/gateway-config.service';
import { limitConnections } from '../rpc/http/connection-limit';
import { bindError } from '../rpc/http/listen';
import { parseListenAddress } from '../rpc/http/listen-address';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';

/**
 * The operator's port (`[instrumentation] prometheus_listen_addr`, on with `prometheus = true`):
 * `GET /metrics` (Prometheus text format), `/livez` (200 while the process serves HTTP at all) and
 * `/readyz` (200 when ready, 503 with the failing checks otherwise). A plain node:http server, apart
 * from the RPC listeners, with `[instrumentation] max_open_connections` applied.
 */
@Injectable()
export class MetricsServer {
  private readonly logger = new Logger('Metrics');
  private server: Server | undefined;
  private boundUrl: string | undefined;

  constructor(
    private readonly config: GatewayConfigService,
    private readonly metrics: MetricsService,
    private readonly readiness: ReadinessService,
  ) {}

  /** `http://host:port` once listening; undefined while off. */
  get url(): string | undefined {
    return this.boundUrl;
  }

  /** Starts listening when Prometheus is enabled; resolves to the bound URL (undefined when off). */
  async listen(): Promise<string | undefined> {
    const settings = this.config.instrumentation;
    if (!settings.prometheus || this.server) return this.boundUrl;
    const address = parseListenAddress(settings.prometheus_listen_addr);
    if (address.kind !== 'tcp') throw new Error(`prometheus_listen_addr ${settings.prometheus_listen_addr}: expected host:port`);
    const server = createServer((req, res) => void this.handle(req, res));
    server.keepAliveTimeout = 65_000;
    limitConnections([server], settings.max_open_connections);
    await new Promise<void>((resolve, reject) => {
      const failed = (error: Error) => reject(bindError('config/config.toml: [instrumentation] prometheus_listen_addr', settings.prometheus_listen_addr, error));
      server.once('error', failed);
      server.listen(address.port, address.host, () => {
        server.off('error', failed);
        resolve();
      });
    });
    this.server = server;
    const info = server.address() as AddressInfo;
    this.boundUrl = `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`;
    this.logger.log(`metrics, /livez and /readyz on ${this.boundUrl}`);
    return this.boundUrl;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.boundUrl = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { Allow: 'GET, HEAD' });
    try {
      switch (path) {
        case '/metrics':
          return send(res, 200, this.metrics.registry.contentType, await this.metrics.scrape());
        case '/livez':
          return send(res, 200, 'text/plain; charset=utf-8', 'ok\n');
        case '/readyz': {
          const state = await this.readiness.state();
          return send(res, state.ready ? 200 : 503, 'application/json', `${JSON.stringify({ status: state.ready ? 'ready' : 'not ready', checks: state.checks })}\n`);
        }
        default:
          return send(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
      }
    } catch (err) {
      this.logger.error(`${path} failed: ${err instanceof Error ? err.message : String(err)}`);
      return send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
    }
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
