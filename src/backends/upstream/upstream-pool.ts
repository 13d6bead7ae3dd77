/**
 * A pool of upstreams (node RPC or EVM, per its PoolProtocol): health checks, routing, retries and
 * hedging, the response cache (memory, then Redis shared by replicas) and in-flight dedup of identical
 * reads. The pool serves one chain (CometBFT `network`, EVM chain id): the one most upstreams reported
 * when it first had a healthy one; an upstream on another chain is quarantined (`wrong-chain`), and every
 * cache entry and in-flight read is keyed by the chain of the upstream that answered it, so answers of
 * two chains never mix. Reloadable: `reload()` is a handover (see there). Counters and states are
 * public for metrics.
 */
import { Logger } from '@nestjs/common';
import type { Json } from '../../rpc/json';
import { readResult, resultJson, type WireResult } from '../../rpc/result-json';
import type { CacheRule } from '../../rpc/method';
import { HealthChecker, type ChainIdentity, type HealthTransition } from './health-checker';
import type { PoolProtocol } from './pool-protocol';
import { RedisCacheTier, type RedisCache } from './redis-cache';
import { RequestExecutor, type AnsweredCall, type UpstreamRequest } from './request-executor';
import { cacheStats, ResponseCache, type CacheStats } from '../response-cache';
import { Upstream } from './upstream';
import type { UpstreamEndpoint, UpstreamSettings } from '../../config/upstream-config';
import type { PoolSurface, UpstreamObserver } from './upstream-observer';
import type { PoolStats } from './pool-stats';
import { noteCacheHit } from '../../tracing/upstream-spans';
import { ReadWaiters } from './read-waiters';
import { isPromiseLike, type CallExpiry } from '../../rpc/within-deadline';


export interface PoolRequest extends Omit<UpstreamRequest, 'waiters'> {
  readonly cache: CacheRule;
  /** The call's deadline: a read no call waits for any more is abandoned. */
  readonly expiry?: CallExpiry;
}

/** The response cache of a pool. */
export interface PoolCache {
  /** `[cache] max_bytes`: memory for answers; 0 = none kept in memory. */
  readonly maxBytes: number;
  /** The gateway's Redis connection; none without `[cache] redis_url`. */
  readonly redis?: RedisCache;
}

export class UpstreamPool {
  private readonly logger: Logger;
  private list: Upstream[] = [];
  private readonly health: HealthChecker;
  private readonly executor: RequestExecutor;
  readonly cache: ResponseCache;
  /** The Redis tier; undefined without `[cache] redis_url`. */
  readonly sharedCache: RedisCacheTier | undefined;
  private readonly inFlight = new Map<string, { readonly answer: Promise<WireResult>; readonly waiters?: ReadWaiters }>();
  /** Reads answered by joining an identical one in flight. */
  deduplicated = 0;
  private readonly headListeners = new Set<(head: bigint) => void>();
  private lastHead = 0n;
  /** The chain served; '' until known. Only a reload changes a known chain. */
  private chainId = '';
  /** Times a reload moved the pool to another chain. */
  chainChanges = 0;
  /** The chain before a reload switched in a list none of which answered: a different first chain is a change. */
  private formerChain = '';
  /** Bumped by every reload: a reload still waiting for its list to turn healthy yields to a newer one. */
  private generation = 0;

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
    const pool = this;
    this.executor = new RequestExecutor(() => this.list, settings, protocol, {
      get current() {
        return pool.chainId;
      },
      quarantine: (u, network) => this.health.quarantine(u, network),
    });
    this.health = new HealthChecker(
      () => this.list,
      settings.health_check_interval,
      Math.min(settings.request_timeout, Math.max(1_000, settings.health_check_interval * 2)),
      BigInt(settings.max_height_lag),
      settings.unhealthy_threshold,
      (t) => this.onTransition(t),
      () => this.noticeHead(),
      (u, timeoutMs) => protocol.probe(u, timeoutMs),
      this.chainIdentity(),
      (u, height, timeoutMs) => protocol.hasBlock(u, height, timeoutMs),
    );
    this.list = entries.map((n) => this.upstream(n));
  }

  /** The chain the pool serves: CometBFT `network` or EVM chain id; '' until one was seen. */
  get chain(): string {
    return this.chainId;
  }

  private chainIdentity(): ChainIdentity {
    const pool = this;
    return {
      get current() {
        return pool.chainId;
      },
      adopt(network: string) {
        const former = pool.formerChain;
        pool.formerChain = '';
        if (former !== '' && former !== network) pool.changeChain(former, network);
        else pool.logger.log(`${pool.kind} pool serves chain ${network}`);
        pool.chainId = network;
      },
    };
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
    this.generation++;
    this.health.stop();
    for (const u of this.list) u.close();
  }

  /** A health round now (tests, and after a socket saw a failure). */
  async checkHealth(): Promise<void> {
    await this.health.checkNow();
    this.noticeHead();
  }

  /**
   * Replaces the upstream list as a handover. Unchanged upstreams (same name, URL and fields) keep their
   * state and connections; the new list is health-checked on its own (not by joining a round under way,
   * which covers only the old list) before it is switched in, so no request meets a `not-checked`
   * upstream. The chain the new list reports by majority becomes the pool's (a change is logged and
   * counted; answers cached for the old chain are never served for the new one, being keyed by chain).
   * While none of the new list is healthy and some of the old one is, the old list keeps serving and the
   * new one is checked again every `health_check_interval` until one of it is healthy (or a newer reload
   * comes). Upstreams left out finish the requests in flight on them, then close.
   */
  async reload(entries: readonly UpstreamEndpoint[]): Promise<void> {
    const generation = ++this.generation;
    const old = new Map(this.list.map((u) => [`${u.name}\n${u.config.url}`, u]));
    const kept = new Set<Upstream>();
    const next = entries.map((n) => {
      const same = old.get(`${n.name}\n${n.url}`);
      if (same && sameEntry(same.config, n)) {
        kept.add(same);
        return same;
      }
      return this.upstream(n);
    });
    const names = next.map((u) => u.name).join(', ') || '(empty)';
    this.logger.log(`${this.kind} upstream list reloading: ${names}; checking its health before the switch`);
    for (let waited = false; ; waited = true) {
      if (waited) await sleep(this.settings.health_check_interval);
      if (generation !== this.generation) {
        for (const u of next) if (!kept.has(u) && !this.list.includes(u)) u.close();
        return;
      }
      const probes = await this.health.probeAll(next);
      if (generation !== this.generation) continue;
      const chain = this.health.majorityChain(probes);
      const oldServing = this.list.some((u) => u.healthy);
      const nextServing = probes.some((p) => p.ok && p.network === chain && !p.catchingUp);
      if (next.length > 0 && !nextServing && oldServing) {
        if (!waited) {
          const why = next.map((u, i) => `${u.name}: ${probes[i].ok ? (probes[i].catchingUp ? 'catching-up' : `chain ${probes[i].network}`) : `unreachable (${probes[i].error})`}`);
          this.logger.warn(`${this.kind} upstream list reload: no new upstream is healthy yet (${why.join('; ')}); the current list serves until one is`);
        }
        continue;
      }
      if (chain === '' && next.length > 0) {
        // Nothing of the new list answered: its chain is adopted at its first good check.
        if (this.chainId !== '') this.formerChain = this.chainId;
        this.chainId = '';
      } else if (chain !== '' && this.chainId !== '' && chain !== this.chainId) {
        this.changeChain(this.chainId, chain);
        this.chainId = chain;
      } else if (chain !== '') {
        this.chainId = chain;
      }
      this.health.apply(next, probes);
      const previous = this.list;
      this.list = next;
      for (const u of previous) if (!kept.has(u)) u.retire(this.settings.request_timeout);
      const healthy = next.filter((u) => u.healthy).length;
      this.logger.log(`${this.kind} upstream list reloaded: ${names} (${healthy} of ${next.length} healthy${this.chainId ? `, chain ${this.chainId}` : ''})`);
      this.noticeHead();
      return;
    }
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

  /** An answer from the memory cache comes back as it is, not as a promise: a hit costs no promise chain. */
  request(req: PoolRequest): WireResult | Promise<WireResult> {
    const answer = req.idempotent
      ? this.read(`${req.method}${JSON.stringify(req.params)}`, req.cache, req.needs.height, (waiters) => this.executor.execute({ ...req, waiters }), req.expiry)
      : this.executor.execute(req).then(resultOf);
    if (req.unread) return answer;
    // Read at once for a caller that reads it: what the cache or a joined read holds may be unread.
    return isPromiseLike(answer) ? answer.then(readResult) : readResult(answer);
  }

  /**
   * An answer the gateway computes (from other calls), kept by `rule` as an upstream's answer would be,
   * under `key` (the method and its params).
   */
  remember(key: string, rule: CacheRule, height: bigint | undefined, compute: () => Promise<Json>): WireResult | Promise<WireResult> {
    const chain = this.chainId;
    return this.read(key, rule, height, async () => {
      const result = await compute();
      // Computed from answers of the pool's chain when it has not changed meanwhile.
      return { result, bytes: resultJson(result).length, network: this.chainId === chain ? chain : undefined };
    });
  }

  /** A read: the memory cache, or one identical read in flight, or `fetch` (through Redis for an immutable answer). */
  private read(what: string, rule: CacheRule, height: bigint | undefined, fetch: (waiters?: ReadWaiters) => Promise<AnsweredCall & { readonly network?: string }>, expiry?: CallExpiry): WireResult | Promise<WireResult> {
    // Keyed by chain: what was read or is being read for another chain is never an answer for this one.
    const chain = this.chainId;
    const key = `${chain}:${what}`;
    const head = this.head;
    if (rule.kind !== 'never') {
      const hit = this.cache.get(key, head);
      if (hit !== undefined) {
        noteCacheHit('memory');
        return hit;
      }
    }
    return this.joined(key, expiry, (waiters) => this.load(key, chain, rule, height, head, () => fetch(waiters)));
  }

  /** Its response cache's counts (memory, and Redis with `[cache] redis_url`), without the rest of stats(). */
  cacheStats(): CacheStats {
    return cacheStats(this.cache, this.sharedCache);
  }

  stats(): PoolStats {
    return {
      head: this.head.toString(),
      chain: this.chainId,
      chain_changes: this.chainChanges,
      cache: this.cacheStats(),
      deduplicated: this.deduplicated,
      upstreams: this.list.map((u) => u.describe()),
    };
  }

  /** Why no upstream can serve now, as the error a client gets. */
  unavailable(): Error {
    return this.executor.unavailable({});
  }

  /** One read per key in flight, abandoned once every call that joined it timed out (one without a deadline: never). */
  private joined(key: string, expiry: CallExpiry | undefined, load: (waiters?: ReadWaiters) => Promise<WireResult>): Promise<WireResult> {
    const running = this.inFlight.get(key);
    if (running) {
      this.deduplicated++;
      running.waiters?.join(expiry);
      return running.answer;
    }
    const waiters = expiry === undefined ? undefined : new ReadWaiters(expiry);
    // then(done, failed) rather than finally(): one step fewer in every read's promise chain.
    const answer = load(waiters).then(
      (result) => {
        this.inFlight.delete(key);
        return result;
      },
      (err: unknown) => {
        this.inFlight.delete(key);
        throw err;
      },
    );
    this.inFlight.set(key, { answer, waiters });
    return answer;
  }

  /** Redis for an immutable answer (filling memory), else `fetch`, whose answer is stored. */
  private load(key: string, chain: string, rule: CacheRule, height: bigint | undefined, head: bigint, fetch: () => Promise<AnsweredCall & { readonly network?: string }>): Promise<WireResult> {
    const sharedKey = rule.kind === 'immutable' && chain !== '' && this.sharedCache ? `${this.kind.toLowerCase()}:${key}` : undefined;
    const fetched = () => fetch().then((answer) => this.store(key, chain, sharedKey, rule, height, answer, head));
    if (sharedKey === undefined) return fetched();
    return this.sharedCache!.get(sharedKey).then((shared) => {
      if (shared === undefined) return fetched();
      noteCacheHit('redis');
      this.cache.setImmutable(key, shared.result, shared.bytes);
      return shared.result;
    });
  }

  /**
   * Keeps an answer by its rule; its result. Kept only when the upstream that answered was, at its last
   * health check, on the chain the key names (a reload may have moved the pool meanwhile).
   */
  private store(key: string, chain: string, sharedKey: string | undefined, rule: CacheRule, height: bigint | undefined, answer: AnsweredCall & { readonly network?: string }, head: bigint): WireResult {
    if (chain === '' || (answer.upstream?.network ?? answer.network) !== chain) return answer.result;
    const settled = height === undefined || height <= this.head - BigInt(this.settings.finality_depth);
    // A latest answer stays in memory only: it dies at the next block, before sharing it could pay off.
    const latestHead = head > 0n && head === this.head ? head : undefined;
    const immutable = this.cache.keep(key, rule, answer.result, answer.bytes, settled, latestHead, this.settings.latest_ttl);
    if (immutable && sharedKey !== undefined) this.sharedCache?.set(sharedKey, answer.result);
    return answer.result;
  }

  private changeChain(from: string, to: string): void {
    this.chainChanges++;
    this.logger.warn(`${this.kind} pool moves from chain ${from} to chain ${to} (most of the reloaded upstreams report it); nothing cached or in flight for chain ${from} is served from now on`);
    this.cache.clear();
    this.lastHead = 0n;
  }

  private noticeHead(): void {
    const head = this.head;
    if (head <= this.lastHead) return;
    this.lastHead = head;
    for (const l of this.headListeners) l(head);
  }

  private upstream(entry: UpstreamEndpoint): Upstream {
    return new Upstream(entry, this.settings, (u, reason) =>
      this.logger.warn(`upstream ${u.name} (${u.endpoint}) does not take batches (${reason}): its calls go one by one from now on`),
    );
  }

  private onTransition(t: HealthTransition): void {
    const u = t.upstream;
    if (u.retired) return;
    if (t.reason === 'wrong-chain') this.logger.warn(`upstream ${u.name} (${u.endpoint}) is quarantined: it reports ${t.error}; none of its answers is served until it is back on that chain`);
    else if (t.healthy) this.logger.log(`upstream ${u.name} (${u.endpoint}) is healthy at height ${u.latestHeight}`);
    else this.logger.warn(`upstream ${u.name} (${u.endpoint}) is down: ${t.reason}${t.error ? `: ${t.error}` : ''}`);
    this.noticeHead();
  }
}

const resultOf = (answer: AnsweredCall): WireResult => answer.result;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/** Same name and URL already matched; any other field (weight, ws) changed means a fresh upstream. */
function sameEntry(a: UpstreamEndpoint, b: UpstreamEndpoint): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a as unknown as Record<string, unknown>)[k] === (b as unknown as Record<string, unknown>)[k]);
}
