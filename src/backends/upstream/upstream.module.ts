/**
 * The upstream backend: NODE_BACKEND served by a pool of real CometBFT nodes from `[[upstream.node]]`
 * and EVM_BACKEND by a pool of EVM nodes from `[[upstream.evm]]` in gateway.toml (with none, every EVM
 * call answers `no EVM upstream configured`). Health checks start with the app (the first round
 * completes before it serves, so bad upstreams are known, logged and excluded from the start); the EVM
 * pool's new heads are announced on the event bus for the EVM filters and subscriptions; SIGHUP
 * reloads both upstream lists.
 */
import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { EventBus } from '../../events';
import { EventsModule } from '../../events/events.module';
import { EVM_BACKEND } from '../evm-backend';
import { NODE_BACKEND } from '../node-backend';
import { EVM_PROTOCOL } from './evm-protocol';
import { EvmHeadFeed } from './evm-head-feed';
import { NODE_PROTOCOL } from './node-protocol';
import { loadUpstreamConfig } from './upstream-config';
import { UpstreamEvmBackend } from './upstream-evm-backend';
import { UpstreamNodeBackend } from './upstream-node-backend';
import { UpstreamPool } from './upstream-pool';
import { WsMultiplexer } from './ws-multiplexer';

@Injectable()
export class UpstreamLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('UpstreamBackend');
  private readonly onHangup = () => void this.reload();
  /** Announces the EVM pool's new blocks on the bus (through the node side's multiplexer, for dedup). */
  readonly evmHeads: EvmHeadFeed;

  constructor(
    @Inject(NODE_BACKEND) private readonly backend: UpstreamNodeBackend,
    @Inject(EVM_BACKEND) private readonly evm: UpstreamEvmBackend,
    private readonly config: GatewayConfigService,
  ) {
    this.evmHeads = new EvmHeadFeed(evm.pool, (height) => backend.events.publishBlock(height));
  }

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([this.backend.pool.start(), this.evm.pool.start()]);
    this.backend.events.start();
    this.evmHeads.start();
    process.on('SIGHUP', this.onHangup);
  }

  onApplicationShutdown(): void {
    process.off('SIGHUP', this.onHangup);
    this.evmHeads.stop();
    this.backend.events.stop();
    this.backend.pool.stop();
    this.evm.pool.stop();
  }

  /** Re-reads `[[upstream.node]]` and `[[upstream.evm]]`; a bad file is logged and the running lists kept. */
  async reload(): Promise<void> {
    try {
      const upstream = loadUpstreamConfig(this.config.home);
      await Promise.all([this.backend.pool.reload(upstream.nodes), this.evm.pool.reload(upstream.evm)]);
    } catch (err) {
      this.logger.error(`upstream reload failed, keeping the current list: ${(err as Error).message}`);
    }
  }
}

@Module({
  imports: [EventsModule],
  providers: [
    {
      provide: NODE_BACKEND,
      inject: [GatewayConfigService, EventBus],
      useFactory: (config: GatewayConfigService, bus: EventBus): UpstreamNodeBackend => {
        const upstream = loadUpstreamConfig(config.home);
        const pool = new UpstreamPool(upstream.nodes, upstream.settings, config.gateway.cache.max_bytes, NODE_PROTOCOL);
        return new UpstreamNodeBackend(pool, new WsMultiplexer(pool, bus), config.rpc.timeout_broadcast_tx_commit);
      },
    },
    {
      provide: EVM_BACKEND,
      inject: [GatewayConfigService],
      useFactory: (config: GatewayConfigService): UpstreamEvmBackend => {
        const upstream = loadUpstreamConfig(config.home);
        return new UpstreamEvmBackend(new UpstreamPool(upstream.evm, upstream.settings, config.gateway.cache.max_bytes, EVM_PROTOCOL, 'EVM'));
      },
    },
    UpstreamLifecycle,
  ],
  exports: [NODE_BACKEND, EVM_BACKEND],
})
export class UpstreamModule {}
