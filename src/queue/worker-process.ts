/**
 * `rpc-gateway worker`: a process that only delivers the broadcast queue's jobs. It builds the gateway
 * from the same configuration (so that it reaches the upstream pools exactly as a replica does) but
 * opens no RPC listener: only the queue's workers run, and the metrics listener when Prometheus is on.
 * Any number of them, and of gateway replicas (with `[queue] workers = false` or not), share the queue
 * through Redis.
 */
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from '../app.module';
import { ConfigError } from '../config/config-error';
import type { AppConfig } from '../config/config.types';
import { createGatewayLogger } from '../logging/gateway-logger';
import { MetricsServer } from '../metrics/metrics-server';
import { startTracing } from '../tracing/tracing-sdk';

export interface RunningWorker {
  readonly app: INestApplicationContext;
  /** `http://host:port` of /metrics, /livez and /readyz; undefined unless `[instrumentation] prometheus`. */
  readonly metricsUrl: string | undefined;
  /** Stops taking jobs, lets the deliveries under way finish, then stops the backend. */
  close(): Promise<void>;
}

export interface WorkerOptions {
  /** `false` silences every log (tests). */
  logger?: false;
  logDestination?: DestinationStream;
}

/** Starts the queue's workers on the configuration's Redis, delivering to its upstream pools. */
export async function startWorker(config: AppConfig, options: WorkerOptions = {}): Promise<RunningWorker> {
  const queue = config.gateway.queue;
  if (!queue.redis_url) {
    throw new ConfigError('rpc-gateway worker: [queue] redis_url (or REDIS_URL) is empty; a worker delivers the jobs of a queue on Redis');
  }
  if (config.gateway.backend.kind !== 'upstream') {
    throw new ConfigError(
      'rpc-gateway worker: [backend] kind is "embedded"; a worker delivers to upstream nodes ([backend] kind = "upstream" with [[upstream.node]] and [[upstream.evm]])',
    );
  }
  const workerConfig: AppConfig = { ...config, gateway: { ...config.gateway, queue: { ...queue, workers: true } } };
  const silent = options.logger === false;
  const tracing = await startTracing(config.instrumentation);
  const logger = createGatewayLogger(silent ? 'silent' : config.gateway.log.level, options.logDestination);
  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot(workerConfig, logger, [], 'worker'),
    silent ? { logger: false, abortOnError: false } : { bufferLogs: true, autoFlushLogs: false, abortOnError: false },
  );
  if (!silent) {
    app.useLogger(app.get(PinoNestLogger));
    app.flushLogs();
  }
  await app.init();
  const metricsServer = app.get(MetricsServer);
  let metricsUrl: string | undefined;
  try {
    metricsUrl = await metricsServer.listen();
  } catch (err) {
    await app.close();
    await tracing.stop();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    app,
    metricsUrl,
    close() {
      closing ??= (async () => {
        await app.close();
        await metricsServer.close();
        await tracing.stop();
      })();
      return closing;
    },
  };
}
