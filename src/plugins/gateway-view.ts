import type { AppConfig } from '../config/config.types';
import type { BackendServices } from '../backends/backend-services';
import type { BroadcastQueue, QueueStatus } from '../queue/broadcast-queue';
import type { JsonObject } from '../rpc/json';
import type { CacheStatus, GatewayView, PoolStatus } from './api';
import { describePlugins, type CatalogEntry } from './plugin-catalog';
import { redactedConfig } from './redacted-config';

// Read once: the version of the package this code belongs to.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const VERSION: string = (require('../../package.json') as { version: string }).version;

/** The operator's read-only view of the gateway that plugins get (`ctx.gateway`). */
export class GatewayViewService implements GatewayView {
  readonly version = VERSION;
  readonly backend: 'embedded' | 'upstream';

  constructor(
    private readonly settings: AppConfig,
    private readonly catalog: () => readonly CatalogEntry[],
    private readonly services?: Pick<BackendServices, 'pools' | 'caches'>,
    private readonly broadcastQueue?: BroadcastQueue,
  ) {
    this.backend = settings.gateway.backend.kind;
  }

  pools(): { node?: PoolStatus; evm?: PoolStatus } {
    const pools = this.services?.pools() ?? {};
    const caches = this.caches();
    const status = (pool: (typeof pools)['node'], cache: CacheStatus | undefined): PoolStatus | undefined =>
      pool === undefined ? undefined : { head: pool.head, cache: cache ?? {}, upstreams: pool.upstreams };
    return { node: status(pools.node, caches.node), evm: status(pools.evm, caches.evm) };
  }

  caches(): { node?: CacheStatus; evm?: CacheStatus } {
    const caches = this.services?.caches() ?? {};
    return { node: caches.node as CacheStatus | undefined, evm: caches.evm as CacheStatus | undefined };
  }

  config(): JsonObject {
    return redactedConfig(this.settings);
  }

  plugins(): JsonObject[] {
    return describePlugins(this.catalog(), this.settings);
  }

  async queue(): Promise<QueueStatus> {
    if (this.broadcastQueue) return this.broadcastQueue.status();
    return { driver: 'memory', durable: false, up: true, workers: false, lanes: [], failed: [] };
  }
}
