import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { RequestLog } from './request-log';

/**
 * Structured JSON logs through pino: Nest's own logger and `PinoLogger` injection (nestjs-pino) and
 * the RequestLog (one line per RPC call, with the request's correlation id) share the process's one
 * logger (createGatewayLogger). nestjs-pino's per-request middleware (pino-http, an async context per
 * request) is left out: it cost 10–35 % of the node RPC's throughput; the transports hand the request
 * id to the calls they dispatch instead.
 */
@Module({})
export class LoggingModule {
  static forRoot(logger: Logger): DynamicModule {
    return {
      module: LoggingModule,
      global: true,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger }, forRoutes: [] })],
      providers: [{ provide: RequestLog, useFactory: () => new RequestLog(logger) }],
      exports: [RequestLog],
    };
  }
}
