/** What a pool reports of itself (the operator's view, metrics, tests): `UpstreamPool.stats()`. */
import type { RedisTierStats } from './redis-cache';

export interface CacheTierStats {
  hits: number;
  misses: number;
}

export interface PoolStats {
  head: string;
  /** The chain served: CometBFT `network` or EVM chain id; '' until an upstream was seen healthy. */
  chain: string;
  /** Times a reload moved the pool to another chain. */
  chain_changes: number;
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
