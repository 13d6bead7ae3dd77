/**
 * The upstream backend: the node RPC served by a pool of real CometBFT nodes from `[[upstream.node]]`
 * and the EVM RPC by a pool of EVM nodes from `[[upstream.evm]]` in gateway.toml (with none, every EVM
 * call answers `no EVM upstream configured`), each call through the one forward path. Health checks
 * start with the app (the first round completes before it serves, so bad upstreams are known, logged
 * and excluded from the start); the EVM pool's new heads are announced on the event bus for the EVM
 * filters and subscriptions; SIGHUP reloads both upstream lists. With `[cache] redis_url`, both pools
 * share one Redis connection for their response caches, closed on shutdown. An UPSTREAM_OBSERVER, when
 * provided (the metrics), watches both pools.
 */
import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { reloadUpstreamLists } from '../../config/upstream-config';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { EventBus } from '../../events';
import { EventsModule } from '../../events/events.module';
import { Invoker } from '../../rpc/invoker';
import type { MethodEnv } from '../../rpc/method';
import { METHOD_BACKEND } from '../../rpc/registration';
import { BACKEND_SERVICES, type BackendServices } from '../backend-services';
import { EVM_PROTOCOL } from './evm-protocol';
import { EvmHeadFeed } from './evm-head-feed';
import { namedParams, positionalParams } from '../params-form';
import { ForwardPath } from './forward-path';
import { NODE_PROTOCOL } from './node-protocol';
import { RedisCache } from './redis-cache';
import { UPSTREAM_OBSERVER, type UpstreamObserver } from './upstream-observer';
import { UpstreamPool, type PoolCache } from './upstream-pool';
import { WsMultiplexer } from './ws-multiplexer';

/** The Redis tier of the response cache; null without `[cache] redis_url`. */
const RESPONSE_CACHE_REDIS = Symbol('RESPONSE_CACHE_REDIS');

/** Both pools, the forward path over each, and what shares the node pool's upstream subscriptions between clients. */
export class UpstreamPools {
  readonly nodeMethods: ForwardPath;
  readonly evmMethods: ForwardPath;
  readonly events: WsMultiplexer;

  constructor(
    readonly node: UpstreamPool,
    readonly evm: UpstreamPool,
    bus: EventBus,
    env: MethodEnv,
  ) {
    this.nodeMethods = new ForwardPath(node, namedParams, env);
    this.evmMethods = new ForwardPath(evm, positionalParams, env);
    this.events = new WsMultiplexer(node, bus, new Invoker(this.nodeMethods, env));
  }

  /** CometBFT's empty object, plus which upstreams are down when some are (clients ignore extra fields). */
  async health(): Promise<Record<string, never> | { upstreams: { name: string; healthy: boolean; reason: string; latest_height: string }[] }> {
    const all = this.node.upstreams;
    if (!this.node.serving) throw this.node.unavailable();
    if (all.every((u) => u.healthy)) return {};
    return { upstreams: all.map((u) => ({ name: u.name, healthy: u.healthy, reason: u.downReason, latest_height: u.latestHeight.toString() })) };
  }

  /** Ready when every configured pool has a healthy upstream (one pool may be left unconfigured). */
  ready(): boolean {
    const pools = [this.node, this.evm].filter((p) => p.upstreams.length > 0);
    return pools.length > 0 && pools.every((p) => p.serving);
  }
}

@Injectable()
export class UpstreamLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('UpstreamBackend');
  private readonly onHangup = () => void this.reload();
  /** Announces the EVM pool's new blocks on the bus (through the node side's multiplexer, for dedup). */
  readonly evmHeads: EvmHeadFeed;

  constructor(
    private readonly pools: UpstreamPools,
    @Inject(RESPONSE_CACHE_REDIS) private readonly redis: RedisCache | null,
    private readonly config: GatewayConfigService,
  ) {
    this.evmHeads = new EvmHeadFeed(pools.evm, (height) => pools.events.publishBlock(height));
  }

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([this.pools.node.start(), this.pools.evm.start()]);
    this.pools.events.start();
    this.evmHeads.start();
    process.on('SIGHUP', this.onHangup);
  }

  async onApplicationShutdown(): Promise<void> {
    process.off('SIGHUP', this.onHangup);
    this.evmHeads.stop();
    this.pools.events.stop();
    this.pools.node.stop();
    this.pools.evm.stop();
    await this.redis?.close();
  }

  /** Re-reads `[[upstream.node]]` and `[[upstream.evm]]`; a bad file is logged and the running lists kept. */
  async reload(): Promise<void> {
    try {
      const upstream = reloadUpstreamLists(this.config.home);
      await Promise.all([this.pools.node.reload(upstream.nodes), this.pools.evm.reload(upstream.evm)]);
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
      provide: UpstreamPools,
      inject: [GatewayConfigService, EventBus, RESPONSE_CACHE_REDIS, { token: UPSTREAM_OBSERVER, optional: true }],
      useFactory: (config: GatewayConfigService, bus: EventBus, redis: RedisCache | null, observer?: UpstreamObserver): UpstreamPools => {
        const { nodes, evm, settings } = config.gateway.upstream;
        const cache: PoolCache = { maxBytes: config.gateway.cache.max_bytes, redis: redis ?? undefined };
        const nodePool = new UpstreamPool(nodes, settings, cache, NODE_PROTOCOL);
        const evmPool = new UpstreamPool(evm, settings, cache, EVM_PROTOCOL, 'EVM');
        if (observer) {
          nodePool.watchedBy(observer, 'node');
          evmPool.watchedBy(observer, 'evm');
        }
        return new UpstreamPools(nodePool, evmPool, bus, { config });
      },
    },
    { provide: METHOD_BACKEND.node, inject: [UpstreamPools], useFactory: (pools: UpstreamPools) => pools.nodeMethods },
    { provide: METHOD_BACKEND.evm, inject: [UpstreamPools], useFactory: (pools: UpstreamPools) => pools.evmMethods },
    {
      provide: BACKEND_SERVICES,
      inject: [UpstreamPools],
      useFactory: (pools: UpstreamPools): BackendServices => ({
        feedEvents: (query) => pools.events.feed(query),
        health: () => pools.health(),
        ready: async () => pools.ready(),
        devAccountKeys: () => [],
        pools: () => ({
          node: pools.node.upstreams.length > 0 ? pools.node.stats() : undefined,
          evm: pools.evm.upstreams.length > 0 ? pools.evm.stats() : undefined,
        }),
        caches: () => ({
          node: pools.node.upstreams.length > 0 ? pools.node.cacheStats() : undefined,
          evm: pools.evm.upstreams.length > 0 ? pools.evm.cacheStats() : undefined,
        }),
      }),
    },
    UpstreamLifecycle,
  ],
  exports: [UpstreamPools, METHOD_BACKEND.node, METHOD_BACKEND.evm, BACKEND_SERVICES],
})
export class UpstreamModule {}
