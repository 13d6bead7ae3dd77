/** What a pool reports of itself (the operator's view, metrics, tests): `UpstreamPool.stats()`. */
import type { CacheStats } from '../response-cache';

export interface PoolStats {
  head: string;
  /** The chain served: CometBFT `network` or EVM chain id; '' until an upstream was seen healthy. */
  chain: string;
  /** Times a reload moved the pool to another chain. */
  chain_changes: number;
  cache: CacheStats;
  deduplicated: number;
  upstreams: Record<string, string | number | boolean>[];
}
