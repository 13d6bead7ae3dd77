/**
 * The JSON answers of `gateway_upstreams` and `gateway_cache`, built from the operator's view of the
 * pools (`ctx.gateway.pools()`) and of the response caches (`ctx.gateway.caches()`): one entry per
 * upstream pool, in the order node, evm (the embedded devnet has no pool); on the devnet, one cache entry
 * per interface, node then evm, named as the pool of that interface would be. Heights are decimal strings (int64, as the node RPC writes them);
 * counts and sizes are numbers. `gateway_queue` is the broadcast queue (`ctx.gateway.queue()`), its
 * times as RFC 3339 UTC strings.
 */
import type { CacheStatus, GatewayView, Json, PoolStatus, QueueStatus, UpstreamStatus } from 'rpc-gateway/plugin-api';

type Pools = ReturnType<GatewayView['pools']>;
type Caches = ReturnType<GatewayView['caches']>;
type PoolName = 'node' | 'evm';

/** One upstream of a pool. */
export interface UpstreamJson {
  readonly name: string;
  /** The URL redacted to `scheme://host[:port]` (credentials, paths and queries never shown). */
  readonly url: string;
  readonly healthy: boolean;
  /** Why it is out of rotation: `unreachable`, `lagging`, `catching-up`, `wrong-chain`, `not-checked`; "" when healthy. */
  readonly reason: string;
  /** What the last health check found wrong; "" when healthy. */
  readonly error: string;
  readonly latest_height: string;
  /** Blocks behind the pool head (0 at the head). */
  readonly lag: number;
  /** Its circuit breaker: `closed`, `open` or `half-open`. */
  readonly breaker: string;
}

export interface PoolUpstreamsJson {
  readonly pool: PoolName;
  /** The highest latest height among the pool's healthy upstreams ("0" when none is healthy). */
  readonly head: string;
  readonly upstreams: readonly UpstreamJson[];
}

export interface TierJson {
  readonly hits: number;
  readonly misses: number;
}

export interface RedisTierJson extends TierJson {
  /** Redis answers now. */
  readonly up: boolean;
  /** Times it went down. */
  readonly outages: number;
  /** Commands that failed or timed out (each a miss). */
  readonly errors: number;
  /** Answers written. */
  readonly writes: number;
}

export interface PoolCacheJson {
  readonly pool: PoolName;
  /** Cacheable reads answered from a tier. */
  readonly hits: number;
  /** Cacheable reads sent upstream (or joined to an identical one in flight). */
  readonly misses: number;
  /** Memory tier: answers evicted to stay within max_bytes. */
  readonly evictions: number;
  /** Memory tier: bytes held, entries held, and its bound (`[cache] max_bytes`). */
  readonly bytes: number;
  readonly entries: number;
  readonly max_bytes: number;
  /** Lookups per tier: memory first, then Redis (immutable answers only); redis is null without `[cache] redis_url`. */
  readonly tiers: { readonly memory: TierJson; readonly redis: RedisTierJson | null };
}

/** The entries present, in the order node, evm. */
function byPool<T>(entries: { readonly node?: T; readonly evm?: T }): Array<[PoolName, T]> {
  const named: Array<[PoolName, T | undefined]> = [
    ['node', entries.node],
    ['evm', entries.evm],
  ];
  return named.filter((entry): entry is [PoolName, T] => entry[1] !== undefined);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const record = (value: Json | undefined): Readonly<Record<string, Json>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};

function height(value: unknown): bigint {
  const t = text(value);
  return /^[0-9]+$/.test(t) ? BigInt(t) : 0n;
}

function upstreamJson(u: UpstreamStatus, head: bigint): UpstreamJson {
  const latest = height(u.latest_height);
  return {
    name: text(u.name),
    url: text(u.url),
    healthy: u.healthy === true,
    reason: text(u.reason),
    error: text(u.error),
    latest_height: latest.toString(),
    lag: Number(head > latest ? head - latest : 0n),
    breaker: text(u.breaker),
  };
}

/** `gateway_upstreams`: each pool's head and upstreams. */
export function upstreamsOfPools(pools: Pools): PoolUpstreamsJson[] {
  return byPool<PoolStatus>(pools).map(([pool, status]) => {
    const head = height(status.head);
    return { pool, head: head.toString(), upstreams: status.upstreams.map((u) => upstreamJson(u, head)) };
  });
}

function tierJson(value: Json | undefined): TierJson {
  const t = record(value);
  return { hits: count(t.hits), misses: count(t.misses) };
}

/** `gateway_cache`: each pool's (or the devnet's, per interface) response cache, in total and per tier. */
export function cacheOf(caches: Caches): PoolCacheJson[] {
  return byPool<CacheStatus>(caches).map(([pool, c]) => {
    const tiers = record(c.tiers);
    const redis = c.redis === null || c.redis === undefined ? null : record(c.redis);
    return {
      pool,
      hits: count(c.hits),
      misses: count(c.misses),
      evictions: count(c.evictions),
      bytes: count(c.bytes),
      entries: count(c.entries),
      max_bytes: count(c.max_bytes),
      tiers: {
        memory: tierJson(tiers.memory),
        redis: redis === null ? null : { ...tierJson(tiers.redis), up: redis.up === true, outages: count(redis.outages), errors: count(redis.errors), writes: count(redis.writes) },
      },
    };
  });
}

/** One job of the queue's failed set. */
export interface FailedJobJson {
  /** `node` (a node RPC broadcast) or `evm` (eth_sendRawTransaction, eth_sendTransaction). */
  readonly lane: string;
  /** The tx hash: CometBFT's upper-case hex on the node lane, 0x-hex on the evm lane. */
  readonly hash: string;
  /** Why the last attempt failed. */
  readonly reason: string;
  readonly attempts: number;
  readonly queued_at: string;
  readonly failed_at: string;
}

export interface QueueJson {
  /** `redis` (BullMQ: durable, shared by replicas and workers) or `memory` (lost on restart). */
  readonly driver: string;
  readonly durable: boolean;
  /** Its store (Redis) answers now. */
  readonly up: boolean;
  /** This gateway delivers jobs (else `rpc-gateway worker` processes do). */
  readonly workers: boolean;
  /** Jobs by state, per lane: `waiting` (to deliver), `active` (being delivered), `delayed` (waiting for a retry), `failed`. */
  readonly lanes: ReadonlyArray<{ readonly lane: string; readonly waiting: number; readonly active: number; readonly delayed: number; readonly failed: number }>;
  /** The latest failed jobs (at most 100), the latest first. */
  readonly failed: readonly FailedJobJson[];
}

const time = (ms: number): string => new Date(ms).toISOString();

/** `gateway_queue`: the broadcast queue's driver, depth by lane and state, and failed jobs. */
export function queueOf(status: QueueStatus): QueueJson {
  return {
    driver: status.driver,
    durable: status.durable,
    up: status.up,
    workers: status.workers,
    lanes: status.lanes.map((l) => ({ lane: l.lane, waiting: l.waiting, active: l.active, delayed: l.delayed, failed: l.failed })),
    failed: status.failed.map((f) => ({ lane: f.lane, hash: f.id, reason: f.reason, attempts: f.attempts, queued_at: time(f.queued_at), failed_at: time(f.failed_at) })),
  };
}
