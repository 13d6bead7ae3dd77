/**
 * A pool of upstreams (node RPC or EVM, per its PoolProtocol): health checks, routing, retries and
 * hedging, the response cache (memory, then Redis shared by replicas) and in-flight dedup of identical
 * reads. Reloadable: `reload()` swaps the upstream list, keeping the state of upstreams whose name and
 * URL did not change. Counters and states are public for metrics.
 */
import { Logger } from '@nestjs/common';
import type { Json } from '../../rpc/json';
import type { CacheRule } from '../../rpc/method';
import { HealthChecker, type HealthTransition } from './health-checker';
import type { CallResult } from './node-client';
import type { PoolProtocol } from './pool-protocol';
import { RedisCacheTier, type RedisCache, type RedisTierStats } from './redis-cache';
import { RequestExecutor, type UpstreamRequest } from './request-executor';
import { ResponseCache } from './response-cache';
import { Upstream } from './upstream';
import type { UpstreamEndpoint, UpstreamSettings } from '../../config/upstream-config';
import type { PoolSurface, UpstreamObserver } from './upstream-observer';


export interface PoolRequest extends UpstreamRequest {
  readonly cache: CacheRule;
}

/** The response cache of a pool. */
export interface PoolCache {
  /** `[cache] max_bytes`: memory for answers; 0 = none kept in memory. */
  readonly maxBytes: number;
  /** The gateway's Redis connection; none without `[cache] redis_url`. */
  readonly redis?: RedisCache;
}

export interface CacheTierStats {
  hits: number;
  misses: number;
}

export interface PoolStats {
  head: string;
  cache: {
    /** Cacheable reads answered from a tier / not (sent upstream or joined to one in flight). */
    hits: number;
    misses: number;
    evictions: number;
    bytes: number;
    entries: number;
    max_bytes: number;
    /** Lookups per tier: memory first; Redis (immutable answers only) after a memory miss. */
    tiers: { memory: CacheTierStats; redis: CacheTierStats };
    /** null without `[cache] redis_url`. */
    redis: RedisTierStats | null;
  };
  deduplicated: number;
  upstreams: Record<string, string | number | boolean>[];
}

export class UpstreamPool {
  private readonly logger: Logger;
  private list: Upstream[] = [];
  private readonly health: HealthChecker;
  private readonly executor: RequestExecutor;
  readonly cache: ResponseCache;
  /** The Redis tier; undefined without `[cache] redis_url`. */
  readonly sharedCache: RedisCacheTier | undefined;
  private readonly inFlight = new Map<string, Promise<CallResult>>();
  /** Reads answered by joining an identical one in flight. */
  deduplicated = 0;
  private readonly headListeners = new Set<(head: bigint) => void>();
  private lastHead = 0n;

  constructor(
    entries: readonly UpstreamEndpoint[],
    readonly settings: UpstreamSettings,
    cache: PoolCache,
    readonly protocol: PoolProtocol,
    /** Names the pool in logs: `node`, `EVM`. */
    readonly kind = 'node',
  ) {
    this.logger = new Logger(kind === 'node' ? 'UpstreamPool' : `UpstreamPool(${kind})`);
    this.cache = new ResponseCache(cache.maxBytes);
    this.sharedCache = cache.redis && new RedisCacheTier(cache.redis);
    this.executor = new RequestExecutor(() => this.list, settings, protocol);
    this.health = new HealthChecker(
      () => this.list,
      settings.health_check_interval,
      Math.min(settings.request_timeout, Math.max(1_000, settings.health_check_interval * 2)),
      BigInt(settings.max_height_lag),
      settings.unhealthy_threshold,
      (t) => this.onTransition(t),
      () => this.noticeHead(),
      (u, timeoutMs) => protocol.probe(u, timeoutMs),
    );
    this.list = entries.map((n) => new Upstream(n, settings));
  }

  get upstreams(): readonly Upstream[] {
    return this.list;
  }

  /** The highest latest height among healthy upstreams (0 when none is healthy). */
  get head(): bigint {
    let top = 0n;
    for (const u of this.list) if (u.healthy && u.latestHeight > top) top = u.latestHeight;
    return top;
  }

  /** Some upstream is healthy: the pool can serve. */
  get serving(): boolean {
    return this.list.some((u) => u.healthy);
  }

  /** Checks every upstream once (start-up must not wait on a dead one longer than the timeout), then polls. */
  async start(): Promise<void> {
    await this.health.checkNow();
    this.noticeHead();
    const healthy = this.list.filter((u) => u.healthy).length;
    if (this.list.length === 0) this.logger.log(this.protocol.noneConfigured);
    else if (healthy === 0) this.logger.error(`no healthy ${this.kind} upstream among ${this.list.length}; requests fail until one recovers`);
    else this.logger.log(`${healthy} of ${this.list.length} ${this.kind} upstreams healthy, head ${this.head}`);
    this.health.start();
  }

  stop(): void {
    this.health.stop();
    for (const u of this.list) u.close();
  }

  /** A health round now (tests, and after a socket saw a failure). */
  async checkHealth(): Promise<void> {
    await this.health.checkNow();
    this.noticeHead();
  }

  /** Replaces the upstream list; unchanged upstreams keep their state and connections. */
  async reload(entries: readonly UpstreamEndpoint[]): Promise<void> {
    const old = new Map(this.list.map((u) => [`${u.name}\n${u.config.url}`, u]));
    const next = entries.map((n) => {
      const key = `${n.name}\n${n.url}`;
      const kept = old.get(key);
      old.delete(key);
      return kept && sameEntry(kept.config, n) ? kept : (kept?.close(), new Upstream(n, this.settings));
    });
    this.list = next;
    for (const u of old.values()) u.close();
    this.logger.log(`${this.kind} upstream list reloaded: ${next.map((u) => u.name).join(', ') || '(empty)'}`);
    await this.checkHealth();
  }

  /** Lets `observer` (the metrics) watch this pool, which serves `surface`. */
  watchedBy(observer: UpstreamObserver, surface: PoolSurface): void {
    this.executor.observer = observer.watch(this, surface);
  }

  /** Called with the new head whenever it rises. */
  onHead(listener: (head: bigint) => void): () => void {
    this.headListeners.add(listener);
    return () => this.headListeners.delete(listener);
  }

  /** A height seen on an upstream's socket: raises that upstream's known head between checks. */
  observeHeight(u: Upstream, height: bigint): void {
    u.observeHeight(height);
    this.noticeHead();
  }

  /**
   * An answer showed that block `height` exists (a committed tx, a receipt). When the head is behind it,
   * a health round moves the head now, so that the client's next read is not answered from the cache
   * of an older latest height.
   */
  async sawHeight(height: bigint): Promise<void> {
    // A round already under way (which checkHealth joins) may have probed before that block: then one more.
    for (let round = 0; round < 2 && height > this.head; round++) await this.checkHealth();
  }

  async request(req: PoolRequest): Promise<Json> {
    if (!req.idempotent) return (await this.executor.execute(req)).result;
    const key = `${req.method}${JSON.stringify(req.params)}`;
    const head = this.head;
    if (req.cache.kind !== 'never') {
      const hit = this.cache.get(key, head);
      if (hit !== undefined) return hit;
    }
    return (await this.joined(key, () => this.load(key, req, head))).result;
  }

  stats(): PoolStats {
    const c = this.cache;
    const shared = this.sharedCache;
    const redis = { hits: shared?.hits ?? 0, misses: shared?.misses ?? 0 };
    return {
      head: this.head.toString(),
      cache: {
        // Every Redis lookup follows a memory miss.
        hits: c.hits + redis.hits,
        misses: c.misses - redis.hits,
        evictions: c.evictions,
        bytes: c.bytes,
        entries: c.size,
        max_bytes: c.maxBytes,
        tiers: { memory: { hits: c.hits, misses: c.misses }, redis },
        redis: shared?.stats() ?? null,
      },
      deduplicated: this.deduplicated,
      upstreams: this.list.map((u) => u.describe()),
    };
  }

  /** Why no upstream can serve now, as the error a client gets. */
  unavailable(): Error {
    return this.executor.unavailable({});
  }

  private joined(key: string, load: () => Promise<CallResult>): Promise<CallResult> {
    const running = this.inFlight.get(key);
    if (running) {
      this.deduplicated++;
      return running;
    }
    const started = load().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }

  /** Redis for an immutable answer (filling memory), else the upstreams, whose answer is stored. */
  private async load(key: string, req: PoolRequest, head: bigint): Promise<CallResult> {
    const sharedKey = req.cache.kind === 'immutable' ? this.sharedKey(key) : undefined;
    const shared = sharedKey === undefined ? undefined : await this.sharedCache?.get(sharedKey);
    if (shared !== undefined) {
      this.cache.setImmutable(key, shared.result, shared.bytes);
      return shared;
    }
    const answer = await this.executor.execute(req);
    this.store(key, sharedKey, req, answer, head);
    return answer;
  }

  /**
   * The Redis key of `key`: under the pool and its chain (the network or chain id a healthy upstream
   * reported), so that pools of two chains sharing one Redis never mix; undefined while no chain is known.
   */
  private sharedKey(key: string): string | undefined {
    const chain = this.sharedCache && this.list.find((u) => u.healthy)?.network;
    return chain ? `${this.kind.toLowerCase()}:${chain}:${key}` : undefined;
  }

  private store(key: string, sharedKey: string | undefined, req: PoolRequest, answer: CallResult, head: bigint): void {
    const rule = req.cache;
    if (rule.kind === 'immutable') {
      const h = req.needs.height;
      const settled = h === undefined || h <= this.head - BigInt(this.settings.finality_depth);
      if (!settled || !(rule.keep?.(answer.result) ?? true)) return;
      this.cache.setImmutable(key, answer.result, answer.bytes);
      if (sharedKey !== undefined) this.sharedCache?.set(sharedKey, answer.result);
    } else if (rule.kind === 'latest' && head > 0n && head === this.head) {
      // Memory only: it dies at the next block, before sharing it could pay off.
      this.cache.setLatest(key, answer.result, answer.bytes, head, this.settings.latest_ttl);
    }
  }

  private noticeHead(): void {
    const head = this.head;
    if (head <= this.lastHead) return;
    this.lastHead = head;
    for (const l of this.headListeners) l(head);
  }

  private onTransition(t: HealthTransition): void {
    const u = t.upstream;
    if (t.healthy) this.logger.log(`upstream ${u.name} (${u.endpoint}) is healthy at height ${u.latestHeight}`);
    else this.logger.warn(`upstream ${u.name} (${u.endpoint}) is down: ${t.reason}${t.error ? `: ${t.error}` : ''}`);
    this.noticeHead();
  }
}

/** Same name and URL already matched; any other field (weight, ws) changed means a fresh upstream. */
function sameEntry(a: UpstreamEndpoint, b: UpstreamEndpoint): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a as unknown as Record<string, unknown>)[k] === (b as unknown as Record<string, unknown>)[k]);
}
