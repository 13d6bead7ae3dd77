import { Module, type DynamicModule } from '@nestjs/common';
import { BackendsModule } from './backends/backends.module';
import { GatewayConfigModule } from './config/config.module';
import type { AppConfig } from './config/config.types';
import { EventsModule } from './events/events.module';
import { EvmDispatcher } from './evm-rpc/core/evm-dispatcher';
import { EvmRpcModule } from './evm-rpc/evm-rpc.module';
import type { Logger } from 'pino';
import { LoggingModule } from './logging/logging.module';
import { Instrumentation } from './metrics/instrumentation';
import { MetricsModule } from './metrics/metrics.module';
import { NodeDispatcher } from './node-rpc/node-dispatcher';
import { NodeRpcModule } from './node-rpc/node-rpc.module';

@Module({})
export class AppModule {
  /** `logger`: the process's pino logger (see createGatewayLogger). */
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        GatewayConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        MetricsModule,
        EventsModule,
        BackendsModule.forRoot(config.gateway.backend.kind),
        NodeRpcModule,
        EvmRpcModule,
      ],
    };
  }

  /** Every surface's dispatcher is watched by metrics, the request log and the shutdown drain. */
  constructor(instrumentation: Instrumentation, node: NodeDispatcher, evm: EvmDispatcher) {
    instrumentation.instrument('node', node);
    instrumentation.instrument('evm', evm);
  }
}
