import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import type { AppConfig } from './config/config.types';
import { createGatewayLogger } from './logging/gateway-logger';
import { MetricsServer } from './metrics/metrics-server';
import { loadPlugins } from './plugins/loader';
import { ReadinessService } from './metrics/readiness.service';
import { Listeners } from './rpc/listeners';
import { startTracing } from './tracing/tracing-sdk';

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
  readonly app: INestApplicationContext;
  /** Base URLs of the node RPC, one per `[rpc] laddr` entry (`http://host:port` or `unix:///path`). */
  readonly nodeRpcUrls: string[];
  /** The EVM RPC's HTTP and WebSocket URLs; undefined unless `[json-rpc] enable`. */
  readonly evmHttpUrl: string | undefined;
  readonly evmWsUrl: string | undefined;
  /** `http://host:port` serving /metrics, /livez and /readyz; undefined unless `[instrumentation] prometheus`. */
  readonly metricsUrl: string | undefined;
  /**
   * Graceful stop: not ready at once (/readyz 503), no new connections, calls in flight drained,
   * WebSockets closed with 1001, the backend stopped, the metrics listener closed last.
   */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * Builds the app from a resolved config and starts every listener. NestJS is the dependency and
 * lifecycle container only: the listeners are bare node:http servers owned by `Listeners`.
 */
export async function startGateway(config: AppConfig, options: StartOptions = {}): Promise<RunningGateway> {
  const silent = options.logger === false;
  const tracing = await startTracing(config.instrumentation);
  const logger = createGatewayLogger(silent ? 'silent' : config.gateway.log.level, options.logDestination);
  // abortOnError off: a failure while the modules are built (an unreachable leader, a bad upstream
  // list) reaches the caller, which prints a ConfigError as its one line instead of aborting; the logs
  // buffered until pino takes over are dropped then, so that line is all the user sees.
  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot(config, logger, loadPlugins(config.gateway.plugins, config.home)),
    silent ? { logger: false, abortOnError: false } : { bufferLogs: true, autoFlushLogs: false, abortOnError: false },
  ).catch(async (err: unknown) => {
    await tracing.stop();
    throw err;
  });
  if (!silent) {
    app.useLogger(app.get(PinoNestLogger));
    app.flushLogs();
  }
  await app.init();

  const readiness = app.get(ReadinessService);
  readiness.require('listeners');
  const metricsServer = app.get(MetricsServer);
  const listeners = app.get(Listeners);
  let metricsUrl: string | undefined;
  try {
    metricsUrl = await metricsServer.listen();
    await listeners.start();
  } catch (err) {
    await listeners.close(0);
    await metricsServer.close();
    await app.close();
    await tracing.stop();
    throw err;
  }
  readiness.report('listeners', true);

  let closing: Promise<void> | undefined;
  const shutdown = async (drainTimeoutMs: number): Promise<void> => {
    readiness.beginShutdown();
    listeners.stopAccepting();
    await readiness.drain(drainTimeoutMs);
    await listeners.close(WS_CLOSE_GRACE_MS);
    await app.close();
    await metricsServer.close();
    // The spans of the last calls go out before the process ends.
    await tracing.stop();
  };

  return {
    app,
    nodeRpcUrls: listeners.urls('node', 'http'),
    evmHttpUrl: listeners.urls('evm', 'http')[0],
    evmWsUrl: listeners.urls('evm', 'ws')[0],
    metricsUrl,
    close(options: CloseOptions = {}) {
      closing ??= shutdown(options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
      return closing;
    },
  };
}
