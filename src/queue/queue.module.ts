import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { GatewayConfigService } from '../config/gateway-config.service';
import { MetricsService } from '../metrics/metrics.service';
import { BROADCAST_QUEUE, type BroadcastQueue } from './broadcast-queue';
import { BullQueue } from './bullmq-queue';
import { BackendDelivery } from './delivery';
import { tracedDelivery } from '../tracing/delivery-spans';
import { MemoryQueue } from './memory-queue';
import { QueueMeters } from './queue-metrics';

/** The queue of the configuration: BullMQ on `[queue] redis_url` (or `REDIS_URL`), else in memory. */
export function createQueue(config: GatewayConfigService, metrics?: MetricsService): BroadcastQueue {
  const settings = config.gateway.queue;
  const meters = QueueMeters.of(metrics);
  return settings.redis_url ? new BullQueue(settings, meters) : new MemoryQueue(settings, meters);
}

/** Starts this process's workers with the app, and stops them first when it closes (before the backends). */
@Injectable()
export class QueueLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('BroadcastQueue');

  constructor(
    @Inject(BROADCAST_QUEUE) private readonly queue: BroadcastQueue,
    private readonly delivery: BackendDelivery,
    private readonly config: GatewayConfigService,
  ) {}

  onApplicationBootstrap(): void {
    const settings = this.config.gateway.queue;
    const workers = this.queue instanceof MemoryQueue || settings.workers;
    if (workers) this.queue.work(tracedDelivery(this.delivery.deliver));
    const delivering = workers ? `delivered here (concurrency ${settings.concurrency}${settings.rate_limit > 0 ? `, ${settings.rate_limit}/s` : ''} per backend)` : 'delivered by other workers';
    if (this.queue instanceof BullQueue) {
      this.logger.log(`broadcast queue on Redis at ${this.queue.where} (prefix ${settings.redis_key_prefix}), durable; txs ${delivering}`);
    } else {
      this.logger.warn(`broadcast queue in memory: broadcasts are not durable (a restart loses txs still queued; set [queue] redis_url to keep them); txs ${delivering}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    const dropped = await this.queue.close();
    if (typeof dropped === 'number' && dropped > 0) this.logger.warn(`${dropped} queued broadcasts dropped at shutdown (the queue is in memory)`);
  }
}

/**
 * The broadcast queue (see broadcast-queue.ts) for the tx methods of both interfaces, with this process's
 * workers. Imported by the modules whose methods broadcast; Nest builds it once.
 */
@Module({
  providers: [
    {
      provide: BROADCAST_QUEUE,
      inject: [GatewayConfigService, { token: MetricsService, optional: true }],
      useFactory: (config: GatewayConfigService, metrics?: MetricsService) => createQueue(config, metrics),
    },
    BackendDelivery,
    QueueLifecycle,
  ],
  exports: [BROADCAST_QUEUE],
})
export class QueueModule {}
