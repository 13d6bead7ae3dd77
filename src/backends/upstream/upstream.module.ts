/**
 * The upstream backend: NODE_BACKEND served by a pool of real CometBFT nodes from `[[upstream.node]]`
 * and EVM_BACKEND by a pool of EVM nodes from `[[upstream.evm]]` in gateway.toml (with none, every EVM
 * call answers `no EVM upstream configured`). Health checks start with the app (the first round
 * completes before it serves, so bad upstreams are known, logged and excluded from the start); the EVM
 * pool's new heads are announced on the event bus for the EVM filters and subscriptions; SIGHUP
 * reloads both upstream lists. With `[cache] redis_url`, both pools share one Redis connection for their
 * response caches, closed on shutdown. An UPSTREAM_OBSERVER, when provided (the metrics), watches both pools.
 */
import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { EventBus } from '../../events';
import { EventsModule } from '../../events/events.module';
import type { MethodRegistry } from '../../rpc/method-registry';
import { METHOD_REGISTRY, RPC_EXECUTOR } from '../../rpc/registration';
import { EVM_BACKEND } from '../evm-backend';
import { forwardingExecutor } from './forwarder';
import { BACKEND_POOLS, BACKEND_READINESS, NODE_BACKEND, type BackendPools, type BackendReadiness } from '../node-backend';
import { EVM_PROTOCOL } from './evm-protocol';
import { EvmHeadFeed } from './evm-head-feed';
import { NODE_PROTOCOL } from './node-protocol';
import { RedisCache } from './redis-cache';
import { reloadUpstreamConfig } from '../../config/upstream-config';
import { UPSTREAM_OBSERVER, type UpstreamObserver } from './upstream-observer';
import { UpstreamEvmBackend } from './upstream-evm-backend';
import { UpstreamNodeBackend } from './upstream-node-backend';
import { UpstreamPool, type PoolCache } from './upstream-pool';
import { WsMultiplexer } from './ws-multiplexer';

/** The Redis tier of the response cache; null without `[cache] redis_url`. */
const RESPONSE_CACHE_REDIS = Symbol('RESPONSE_CACHE_REDIS');

@Injectable()
export class UpstreamLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('UpstreamBackend');
  private readonly onHangup = () => void this.reload();
  /** Announces the EVM pool's new blocks on the bus (through the node side's multiplexer, for dedup). */
  readonly evmHeads: EvmHeadFeed;

  constructor(
    @Inject(NODE_BACKEND) private readonly backend: UpstreamNodeBackend,
    @Inject(EVM_BACKEND) private readonly evm: UpstreamEvmBackend,
    @Inject(RESPONSE_CACHE_REDIS) private readonly redis: RedisCache | null,
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

  async onApplicationShutdown(): Promise<void> {
    process.off('SIGHUP', this.onHangup);
    this.evmHeads.stop();
    this.backend.events.stop();
    this.backend.pool.stop();
    this.evm.pool.stop();
    await this.redis?.close();
  }

  /** Re-reads `[[upstream.node]]` and `[[upstream.evm]]`; a bad file is logged and the running lists kept. */
  async reload(): Promise<void> {
    try {
      const upstream = reloadUpstreamConfig(this.config.home);
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
      provide: RESPONSE_CACHE_REDIS,
      inject: [GatewayConfigService],
      useFactory: (config: GatewayConfigService): RedisCache | null => (config.gateway.cache.redis_url ? new RedisCache(config.gateway.cache) : null),
    },
    {
      provide: NODE_BACKEND,
      inject: [GatewayConfigService, EventBus, RESPONSE_CACHE_REDIS, METHOD_REGISTRY.node, { token: UPSTREAM_OBSERVER, optional: true }],
      useFactory: (config: GatewayConfigService, bus: EventBus, redis: RedisCache | null, methods: MethodRegistry, observer?: UpstreamObserver): UpstreamNodeBackend => {
        const upstream = config.gateway.upstream;
        const pool = new UpstreamPool(upstream.nodes, upstream.settings, poolCache(config, redis), NODE_PROTOCOL);
        if (observer) pool.watchedBy(observer, 'node');
        return new UpstreamNodeBackend(pool, new WsMultiplexer(pool, bus), config.rpc.timeout_broadcast_tx_commit, methods);
      },
    },
    {
      provide: EVM_BACKEND,
      inject: [GatewayConfigService, RESPONSE_CACHE_REDIS, METHOD_REGISTRY.evm, { token: UPSTREAM_OBSERVER, optional: true }],
      useFactory: (config: GatewayConfigService, redis: RedisCache | null, methods: MethodRegistry, observer?: UpstreamObserver): UpstreamEvmBackend => {
        const upstream = config.gateway.upstream;
        const pool = new UpstreamPool(upstream.evm, upstream.settings, poolCache(config, redis), EVM_PROTOCOL, 'EVM');
        if (observer) pool.watchedBy(observer, 'evm');
        return new UpstreamEvmBackend(pool, methods);
      },
    },
    {
      provide: BACKEND_READINESS,
      inject: [NODE_BACKEND, EVM_BACKEND],
      // Ready when every configured pool has a healthy upstream (one pool may be left unconfigured).
      useFactory:
        (node: UpstreamNodeBackend, evm: UpstreamEvmBackend): BackendReadiness =>
        () => {
          const pools = [node.pool, evm.pool].filter((p) => p.upstreams.length > 0);
          return pools.length > 0 && pools.every((p) => p.serving);
        },
    },
    {
      provide: BACKEND_POOLS,
      inject: [NODE_BACKEND, EVM_BACKEND],
      useFactory:
        (node: UpstreamNodeBackend, evm: UpstreamEvmBackend): BackendPools =>
        () => ({
          node: node.pool.upstreams.length > 0 ? node.pool.stats() : undefined,
          evm: evm.pool.upstreams.length > 0 ? evm.pool.stats() : undefined,
        }),
    },
    { provide: RPC_EXECUTOR.node, inject: [NODE_BACKEND], useFactory: (node: UpstreamNodeBackend) => forwardingExecutor(node.pool, {}) },
    { provide: RPC_EXECUTOR.evm, inject: [EVM_BACKEND], useFactory: (evm: UpstreamEvmBackend) => forwardingExecutor(evm.pool, []) },
    UpstreamLifecycle,
  ],
  exports: [NODE_BACKEND, EVM_BACKEND, BACKEND_READINESS, BACKEND_POOLS, RPC_EXECUTOR.node, RPC_EXECUTOR.evm],
})
export class UpstreamModule {}

function poolCache(config: GatewayConfigService, redis: RedisCache | null): PoolCache {
  return { maxBytes: config.gateway.cache.max_bytes, redis: redis ?? undefined };
}
