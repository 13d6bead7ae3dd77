import fastifyCors from '@fastify/cors';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { createGatewayLogger, requestIdGenerator } from './logging/gateway-logger';
import type { AppConfig } from './config/config.types';
import { MetricsServer } from './metrics/metrics-server';
import { MetricsService, surfaceMeters } from './metrics/metrics.service';
import { ReadinessService } from './metrics/readiness.service';
import { nodeCorsOptions } from './node-rpc/transports/cors';
import { NodeWsTransport } from './node-rpc/transports/node-ws.transport';
import { limitConnections } from './rpc/http/connection-limit';
import { parseListenAddress, type ListenAddress } from './rpc/http/listen-address';

/** How long a graceful close waits for calls in flight before closing anyway. */
const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
/** How long WebSocket clients get to answer the 1001 close before their sockets are cut. */
const WS_CLOSE_GRACE_MS = 1_000;

export interface StartOptions {
  /** `false` silences every log (tests); otherwise JSON lines at `[log] level` of gateway.toml. */
  logger?: false;
  /** Where the JSON log lines go; stdout by default. */
  logDestination?: DestinationStream;
}

export interface CloseOptions {
  /** Wait this long for calls in flight (default 10 s); what is still running then is cut off. */
  drainTimeoutMs?: number;
}

export interface RunningGateway {
  readonly app: INestApplication;
  /** Base URLs of the node RPC, one per `[rpc] laddr` entry (`http://host:port` or `unix:///path`). */
  readonly nodeRpcUrls: string[];
  /** `http://host:port` serving /metrics, /livez and /readyz; undefined unless `[instrumentation] prometheus`. */
  readonly metricsUrl: string | undefined;
  /**
   * Graceful stop: not ready at once (/readyz 503), no new connections, calls in flight drained,
   * WebSockets closed with 1001, the backend stopped, the metrics listener closed last.
   */
  close(options?: CloseOptions): Promise<void>;
}

function urlOf(server: Server, address: ListenAddress): string {
  if (address.kind === 'unix') return `unix://${address.path}`;
  const info = server.address() as AddressInfo;
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  return `http://${host}:${info.port}`;
}

function listenOn(server: Server, address: ListenAddress): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve(urlOf(server, address));
    };
    if (address.kind === 'unix') server.listen(address.path, done);
    else server.listen(address.port, address.host, done);
  });
}

/** Builds the app from a resolved config and starts every listener. */
export async function startGateway(config: AppConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const rpc = config.rpc;
  const silent = options.logger === false;
  const logger = createGatewayLogger(silent ? 'silent' : config.gateway.log.level, options.logDestination);
  let handler: RequestListener | undefined;
  const adapter = new FastifyAdapter({
    bodyLimit: rpc.max_body_bytes,
    genReqId: requestIdGenerator(),
    serverFactory: (h: RequestListener) => {
      handler = h;
      return createServer({ maxHeaderSize: rpc.max_header_bytes }, handler);
    },
  });
  // abortOnError off: a failure while the modules are built (an unreachable leader, a bad upstream
  // list) reaches the caller, which prints a ConfigError as its one line instead of aborting; the logs
  // buffered until pino takes over are dropped then, so that line is all the user sees.
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, logger),
    adapter,
    silent ? { bodyParser: false, logger: false, abortOnError: false } : { bodyParser: false, bufferLogs: true, autoFlushLogs: false, abortOnError: false },
  );
  if (!silent) {
    app.useLogger(app.get(PinoNestLogger));
    app.flushLogs();
  }
  const cors = nodeCorsOptions(rpc);
  if (cors) await app.register(fastifyCors, cors);
  await app.init();

  const readiness = app.get(ReadinessService);
  readiness.require('listeners');
  const metricsServer = app.get(MetricsServer);
  const metricsUrl = await metricsServer.listen().catch(async (err: unknown) => {
    await app.close();
    throw err;
  });

  const ws = app.get(NodeWsTransport);
  const metrics = app.get(MetricsService);
  const meters = surfaceMeters(metrics, 'node');
  const [first, ...rest] = rpc.laddr.split(',').map((s) => parseListenAddress(s.trim()));
  const primary = app.getHttpServer() as Server;
  const servers: Server[] = [primary, ...rest.map(() => createServer({ maxHeaderSize: rpc.max_header_bytes }, handler))];
  const sockets = limitConnections(servers, rpc.max_open_connections, () => meters.refuse('max_open_connections'));
  metrics.sampleConnections('node', sockets, () => ws.connections());
  servers.forEach((s) => ws.attach(s));
  await app.listen(first.kind === 'unix' ? { path: first.path } : { port: first.port, host: first.host });
  const nodeRpcUrls = [urlOf(primary, first), ...(await Promise.all(rest.map((a, i) => listenOn(servers[i + 1], a))))];
  readiness.report('listeners', true);

  let closing: Promise<void> | undefined;
  const shutdown = async (drainTimeoutMs: number): Promise<void> => {
    readiness.beginShutdown();
    // No new connections; keep-alive connections go as soon as they are idle, so that the drain ends.
    for (const s of servers) if (s.listening) s.close();
    const idle = setInterval(() => servers.forEach((s) => s.closeIdleConnections()), 10);
    try {
      await readiness.drain(drainTimeoutMs);
    } finally {
      clearInterval(idle);
    }
    // Nothing may stay connected, or the servers' close (inside app.close) waits for it.
    await ws.closeAll(WS_CLOSE_GRACE_MS);
    for (const s of servers) s.closeAllConnections();
    await app.close();
    await metricsServer.close();
  };

  return {
    app,
    nodeRpcUrls,
    metricsUrl,
    close(options: CloseOptions = {}) {
      closing ??= shutdown(options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
      return closing;
    },
  };
}
