import { Inject, Injectable, Logger, Optional, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { AccessService } from '../../access/access.service';
import { redactUrl } from '../../backends/upstream/redact-url';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { MetricsService } from '../../metrics/metrics.service';
import type { Invoker } from '../../rpc/invoker';
import { INVOKER } from '../../rpc/registration';
import type { FilterStore } from './filter-kinds';
import { PollingFilters } from './polling-filters';
import { RedisFilterStore } from './redis-filter-store';
import { SharedFilters } from './shared-filters';

/**
 * The filters of the configuration: shared by every replica through Redis (`[filters] redis_url`, else
 * `[cache] redis_url`, unless `[filters] shared = false`), else this process's polling filters.
 */
@Injectable()
export class ConfiguredFilters implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('EvmFilters');
  readonly store: FilterStore;
  private readonly redis: Redis | undefined;
  private readonly shared: SharedFilters | undefined;
  private readonly where: string = '';

  constructor(
    config: GatewayConfigService,
    polling: PollingFilters,
    @Inject(INVOKER.evm) evm: Invoker,
    @Optional() metrics?: MetricsService,
    @Optional() access?: AccessService,
  ) {
    const settings = config.gateway.filters;
    const url = settings.redis_url || config.gateway.cache.redis_url;
    if (!settings.shared || url === '') {
      this.store = polling;
      return;
    }
    this.where = redactUrl(url);
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      commandTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    });
    this.redis.on('error', () => undefined);
    const store = new RedisFilterStore(this.redis, settings.redis_key_prefix, { ttlMs: config.jsonRpc['filter-timeout'], pendingMax: settings.pending_max });
    this.shared = new SharedFilters(store, evm, { cap: () => config.jsonRpc['filter-cap'] }, metrics, access);
    this.store = this.shared;
  }

  onModuleInit(): void {
    if (this.shared) this.logger.log(`EVM polling filters shared by every replica through Redis at ${this.where}`);
    else this.logger.log('EVM polling filters are per replica (in memory); set [cache] redis_url or [filters] redis_url to share them');
  }

  onModuleDestroy(): void {
    this.shared?.close();
    this.redis?.disconnect();
  }
}
